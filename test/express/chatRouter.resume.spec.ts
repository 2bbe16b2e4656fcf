import express from 'express';
import type { AddressInfo } from 'node:net';
import { createChatClient } from '../../src/client/createChatClient';
import { chatRouter } from '../../src/express/chatRouter';
import { describeResumeContract } from '../helpers/resumeContractSuite';

describeResumeContract('chatRouter', async ({ client: clientConfig, apiKeys, heartbeatMs, resumable }) => {
  const client = createChatClient(clientConfig);
  const app = express();
  app.use(chatRouter({ client, apiKeys, heartbeatMs, resumable }));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await client.close();
    },
  };
});
