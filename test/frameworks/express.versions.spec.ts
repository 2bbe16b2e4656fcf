/**
 * chatRouter from the packed package, mounted by an app of each supported Express major (4 and 5), each installed
 * from the registry beside it: the shared wire suite against each. (test/express runs it on the sources.)
 */
import { FRAMEWORK_PROJECTS } from '../helpers/FRAMEWORK_PROJECTS';
import { installedProject } from '../helpers/packedPackage';
import { describeWireContract } from '../helpers/wireContractSuite';
import { startInstalledServer } from './startInstalledServer';

const projects = { legacy: '', current: '' };
beforeAll(async () => {
  [projects.legacy, projects.current] = await Promise.all([installedProject('legacy', FRAMEWORK_PROJECTS.legacy), installedProject('current', FRAMEWORK_PROJECTS.current)]);
}, 600_000);

describeWireContract('Express 4 (packed chatflux/express)', (setup) => startInstalledServer(projects.legacy, 'express', setup), ['deepseek']);
describeWireContract('Express 5 (packed chatflux/express)', (setup) => startInstalledServer(projects.current, 'express', setup), ['deepseek']);
