import { describeOptions, type OptionRow } from 'chatflux/node';
import { GatewayFileSchema } from './GatewayFileSchema.js';

/**
 * The keys of the gateway's config file (`GatewayFileSchema`), in its order, each with what the schema says of it: its
 * type, default, range, description, whether it is a secret, and its schema (`upstream.timeouts.idle` → its row).
 */
export const GATEWAY_KEYS: ReadonlyMap<string, OptionRow> = new Map(describeOptions(GatewayFileSchema).map((row) => [row.name, row]));
