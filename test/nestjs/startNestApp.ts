import 'reflect-metadata';
import type { INestApplication, ModuleMetadata } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createChatClient, type ChatClient, type ChatClientConfig } from '../../src/client/createChatClient.js';
import { chatRouter, type ChatRouterConfig } from '../../src/express/chatRouter.js';

/** A Nest application listening on 127.0.0.1 with an ephemeral port. */
export interface NestTestApp {
  app: INestApplication;
  url: string;
  close(): Promise<void>;
}

/** Compiles `metadata` into a module, starts it on the Express platform on 127.0.0.1:0. */
export async function startNestApp(metadata: ModuleMetadata, options: { bodyParser?: boolean } = {}): Promise<NestTestApp> {
  const moduleRef = await Test.createTestingModule(metadata).compile();
  const app = moduleRef.createNestApplication({ logger: false, bodyParser: options.bodyParser ?? true });
  await app.listen(0, '127.0.0.1');
  const { port } = (app.getHttpServer() as Server).address() as AddressInfo;
  return { app, url: `http://127.0.0.1:${port}`, close: () => app.close() };
}

/** An Express app with the chat router (the reference the Nest module must match byte for byte). */
export async function startExpressRouter(
  config: Omit<ChatRouterConfig, 'client'> & { client: ChatClientConfig },
): Promise<{ url: string; client: ChatClient; close(): Promise<void> }> {
  const client = createChatClient(config.client);
  const app = express();
  app.use(chatRouter({ ...config, client }));
  const server = await new Promise<Server>((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    client,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await client.close();
    },
  };
}
