import { stringify } from 'yaml';
import { GATEWAY_KEYS } from './GATEWAY_KEYS.js';
import { GATEWAY_SETTINGS } from './GATEWAY_SETTINGS.js';
import type { GatewayConfig } from './loadGatewayConfig.js';

/** What `--check-config` prints of a secret: whether it is set, never its value. */
function secretState(key: string, value: unknown): string {
  if (Array.isArray(value)) return value.length === 0 ? '(none)' : `(${value.length} set)`;
  if (key === 'serve.apiKeys') return '(none)';
  if (value !== undefined) return '(set)';
  return key === 'serve.tokenSecret' ? '(random per process)' : '(not set)';
}

/**
 * The resolved configuration as `chatflux-gateway --check-config` prints it: a YAML document in the config file's
 * sections (`GatewayFileSchema`), every setting with the value in force — given in the file or the environment, else
 * its default — and the routes; secrets only as `(set)`, `(not set)`, `(2 set)`.
 *
 * @param config - The configuration (`loadGatewayConfig`).
 * @returns The YAML text, with a comment saying where it came from.
 */
export function formatResolvedConfig(config: GatewayConfig): string {
  const resolved: Record<string, unknown> = {};
  const put = (key: string, value: unknown): void => {
    const keys = key.split('.');
    let at = resolved;
    for (const segment of keys.slice(0, -1)) at = (at[segment] ??= {}) as Record<string, unknown>;
    at[keys[keys.length - 1]!] = value;
  };
  const fieldValue = (field: string): unknown => field.split('.').reduce<unknown>((at, k) => (at as Record<string, unknown> | undefined)?.[k], config);
  for (const row of GATEWAY_KEYS.values()) {
    const setting = GATEWAY_SETTINGS.find((candidate) => candidate.key === row.name);
    const given = row.name === 'routes' ? config.routes : setting === undefined ? undefined : fieldValue(setting.field);
    if (row.secret) put(row.name, secretState(row.name, given));
    else {
      const value = given ?? row.schema.parse(undefined);
      if (value !== undefined) put(row.name, value);
    }
  }
  const source = config.configFile === undefined ? 'the environment (no config file)' : `${config.configFile}, with the environment over it`;
  return `# chatflux-gateway: the resolved configuration, from ${source}; secrets are not printed.\n${stringify(resolved)}`;
}
