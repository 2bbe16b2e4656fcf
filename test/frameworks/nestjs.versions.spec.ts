/**
 * ChatfluxModule from the packed package in apps of each supported NestJS major, installed from the registry beside
 * it: the shared wire suite on the Express platform for NestJS 10 and 12 (11 runs it on the sources:
 * test/nestjs/wireContract.spec.ts), and on the Fastify platform for 10, 11 and 12.
 */
import { installFrameworkProjects, type FrameworkProjects } from '../helpers/installFrameworkProjects';
import { describeWireContract } from '../helpers/wireContractSuite';
import { startInstalledServer } from './startInstalledServer';

const MAJORS = [
  { major: 10, project: 'legacy', expressPlatform: true },
  { major: 11, project: 'current', expressPlatform: false },
  { major: 12, project: 'next', expressPlatform: true },
] as const;

let projects: FrameworkProjects;
beforeAll(async () => {
  projects = await installFrameworkProjects();
}, 600_000);

for (const { major, project, expressPlatform } of MAJORS) {
  if (expressPlatform) {
    // As the README says to create the app: NestFactory.create(AppModule, { bodyParser: false }).
    describeWireContract(`NestJS ${major} on Express (packed chatflux/nestjs)`, (setup) => startInstalledServer(projects[project], 'nest-express', setup, { bodyParser: false }), [
      'deepseek',
    ]);
  }
  // Fastify parses bodies itself: its refusals (400, 413) keep their status in Nest's format (documented in the README).
  describeWireContract(`NestJS ${major} on Fastify (packed chatflux/nestjs)`, (setup) => startInstalledServer(projects[project], 'nest-fastify', setup), ['deepseek'], {
    bodyErrors: 'platform',
  });
}
