import { createChatClient } from '../../src/client/createChatClient';
import { describeResumeContract } from '../helpers/resumeContractSuite';
import { startHonoChat } from './startHonoChat';

describeResumeContract('chatflux/web on Hono (@hono/node-server)', async ({ client: clientConfig, apiKeys, heartbeatMs, resumable }) => {
  const client = createChatClient(clientConfig);
  const hono = await startHonoChat({ client, apiKeys, heartbeatMs, resumable }, (app, chat) => {
    app.post('/chat/ui', (c) => chat.ui(c.req.raw));
    app.get('/chat/ui/:chatId/stream', (c) => chat.ui(c.req.raw));
  });
  return {
    baseUrl: hono.url,
    close: async () => {
      await hono.close();
      await client.close();
    },
  };
});
