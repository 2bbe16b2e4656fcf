import { createChatClient } from '../../src/client/createChatClient';
import { describeWireContract } from '../helpers/wireContractSuite';
import { startHonoChat } from './startHonoChat';

describeWireContract('chatflux/web on Hono (@hono/node-server)', async ({ client: clientConfig, apiKeys, heartbeatMs }) => {
  const client = createChatClient(clientConfig);
  const hono = await startHonoChat({ client, apiKeys, heartbeatMs });
  return {
    baseUrl: hono.url,
    close: async () => {
      await hono.close();
      await client.close();
    },
  };
});
