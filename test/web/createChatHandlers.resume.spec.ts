import { createChatClient } from '../../src/client/createChatClient';
import { describeResumeContract } from '../helpers/resumeContractSuite';
import { startHonoChat } from './startHonoChat';

describeResumeContract('chatflux/web on Hono (@hono/node-server)', async ({ client: clientConfig, apiKeys, heartbeatMs, resumable }) => {
  const client = createChatClient(clientConfig);
  const hono = await startHonoChat({ client, apiKeys, heartbeatMs, resumable });
  return {
    baseUrl: hono.url,
    close: async () => {
      await hono.close();
      await client.close();
    },
  };
});
