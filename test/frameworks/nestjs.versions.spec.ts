/**
 * ChatfluxModule from the packed package in apps of each supported NestJS major (10, 11, 12) on both platforms
 * (Express and Fastify), each installed from the registry beside it: the shared wire suite against each.
 * (test/nestjs runs it on the sources.)
 */
import { FRAMEWORK_PROJECTS } from '../helpers/FRAMEWORK_PROJECTS';
import { installedProject } from '../helpers/packedPackage';
import { describeWireContract } from '../helpers/wireContractSuite';
import { startInstalledServer } from './startInstalledServer';

const MAJORS = [
  { major: 10, project: 'legacy' },
  { major: 11, project: 'current' },
  { major: 12, project: 'next' },
] as const;

const projects: Partial<Record<keyof typeof FRAMEWORK_PROJECTS, string>> = {};
beforeAll(async () => {
  await Promise.all(MAJORS.map(async ({ project }) => (projects[project] = await installedProject(project, FRAMEWORK_PROJECTS[project]))));
}, 600_000);

for (const { major, project } of MAJORS) {
  // As the README says to create the app: NestFactory.create(AppModule, { bodyParser: false }).
  describeWireContract(`NestJS ${major} on Express (packed chatflux/nestjs)`, (setup) => startInstalledServer(projects[project] as string, 'nest-express', setup, { bodyParser: false }), ['deepseek']);
  // Fastify parses bodies itself: its refusals (400, 413) keep their status in Nest's format (documented in the README).
  describeWireContract(`NestJS ${major} on Fastify (packed chatflux/nestjs)`, (setup) => startInstalledServer(projects[project] as string, 'nest-fastify', setup), ['deepseek'], {
    bodyErrors: 'platform',
  });
}
