import type { z } from 'zod';
import type { ServingOptionsSchema } from './ServingOptionsSchema.js';

/**
 * The serving options as a user writes them: the input type of `ServingOptionsSchema`, where each field is declared,
 * documented and given its default and range once. The serving core's options (`ServingCoreConfig`) are made of it, and
 * every adapter's of those: `ChatEndpointsConfig` (node), `ChatRouterConfig` (Express), `ChatfluxModuleConfig`
 * (NestJS), `WebChatHandlersConfig` (web), and the gateway's `serve` section.
 */
export type ServingSettingsConfig = z.input<typeof ServingOptionsSchema>;
