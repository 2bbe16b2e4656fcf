import { ChatfluxModule } from '../../src/nestjs/index.js';
import { describeWireContract, type WireTarget, type WireTargetSetup } from '../helpers/wireContractSuite.js';
import { describeResumeContract } from '../helpers/resumeContractSuite.js';
import { startNestApp } from './startNestApp.js';

/** The module's routes in a Nest app on the Express platform, with or without Nest's default body parser. */
const startModule =
  (bodyParser: boolean) =>
  async ({ client, apiKeys, heartbeatMs }: WireTargetSetup): Promise<WireTarget> => {
    const nest = await startNestApp({ imports: [ChatfluxModule.forRoot({ client, routes: true, apiKeys, heartbeatMs })] }, { bodyParser });
    return { baseUrl: nest.url, close: () => nest.close() };
  };

// As examples/nestjs/main.ts creates the app: the module parses the bodies itself, after the key check.
describeWireContract('ChatfluxModule (bodyParser: false)', startModule(false));

// NestFactory.create(App) as is: Nest's parser runs first; its refusals still get the router's statuses and formats.
describeWireContract('ChatfluxModule (Nest default body parser)', startModule(true), ['deepseek']);

describeResumeContract('ChatfluxModule', async ({ client, apiKeys, heartbeatMs, resumable }) => {
  const nest = await startNestApp({ imports: [ChatfluxModule.forRoot({ client, routes: true, apiKeys, heartbeatMs, resumable })] }, { bodyParser: false });
  return { baseUrl: nest.url, close: () => nest.close() };
});
