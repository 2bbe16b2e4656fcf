import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createChatHandlers } from '../../src/web/createChatHandlers';
import type { WebChatHandlers } from '../../src/web/WebChatHandlers';
import type { WebChatHandlersConfig } from '../../src/web/WebChatHandlersConfig';

/** A Hono app on `@hono/node-server` (127.0.0.1, ephemeral port) serving the web handlers at the three paths and `POST /chat/token`. */
export interface HonoChat {
  url: string;
  app: Hono;
  close(): Promise<void>;
}

export async function startHonoChat(config: WebChatHandlersConfig, extend?: (app: Hono, chat: WebChatHandlers) => void): Promise<HonoChat> {
  const chat = createChatHandlers(config);
  const app = new Hono();
  app.post('/chat/json', (c) => chat.json(c.req.raw));
  app.post('/chat/stream', (c) => chat.stream(c.req.raw));
  app.on(['GET', 'POST'], '/chat/sse', (c) => chat.sse(c.req.raw));
  app.post('/chat/token', (c) => chat.token(c.req.raw));
  app.get('/chat/streams/:id', (c) => chat.streams(c.req.raw));
  app.post('/chat/streams/:id/cancel', (c) => chat.streams(c.req.raw));
  extend?.(app, chat);
  const server: ServerType = await new Promise((resolve) => {
    const started = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started));
  });
  const node = server as Server;
  return {
    url: `http://127.0.0.1:${(node.address() as AddressInfo).port}`,
    app,
    close: async () => {
      node.closeAllConnections();
      await new Promise((resolve) => node.close(resolve));
    },
  };
}
