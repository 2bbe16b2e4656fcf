import express from 'express';
import { chatRouter, type ChatRouterConfig } from '../../src/express/chatRouter';
import { startServer, type TestServer } from './startServer';

/** An Express app with `chatRouter(config)` on 127.0.0.1 (ephemeral port): the reference adapter. */
export async function startExpressChat(config: ChatRouterConfig): Promise<TestServer> {
  const app = express();
  app.use(chatRouter(config));
  return startServer(app);
}
