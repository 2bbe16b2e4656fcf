/**
 * chatRouter from the packed package, mounted by an Express 4 app (Express 4 installed from the registry beside it):
 * the shared wire suite. Express 5 runs it on the sources (test/express/chatRouter.wire.spec.ts) and loads the packed
 * router in test/package.
 */
import { installFrameworkProjects, type FrameworkProjects } from '../helpers/installFrameworkProjects';
import { describeWireContract } from '../helpers/wireContractSuite';
import { startInstalledServer } from './startInstalledServer';

let projects: FrameworkProjects;
beforeAll(async () => {
  projects = await installFrameworkProjects();
}, 600_000);

describeWireContract('Express 4 (packed chatflux/express)', (setup) => startInstalledServer(projects.legacy, 'express', setup), ['deepseek']);
