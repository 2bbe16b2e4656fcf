import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError, PROVIDERS, type ProviderName } from 'chatflux';

const ms = z.number().int().min(0).max(86_400_000);
const providerNames = ['emulator', ...Object.keys(PROVIDERS)] as [string, ...string[]];

/** One target of a gateway route, as `CHATFLUX_ROUTES` spells it (keys are named by their env var, never written in). */
const RouteTargetSchema = z.strictObject({
  /** A provider preset, or `emulator` (the gateway's built-in emulator). */
  provider: z.enum(providerNames).optional(),
  /** The base URL (required for `openai-compatible`). */
  baseUrl: z.string().regex(/^https?:\/\//, 'an http(s) URL').optional(),
  /** The environment variable holding this target's API key (default: the preset's own). */
  apiKeyEnv: z.string().min(1).optional(),
  /** The model sent to this target. */
  model: z.string().min(1).optional(),
  /** The target's name in attempts and logs. */
  name: z.string().min(1).optional(),
  /** Its retry budget (retries of a transient failure before the next target). */
  retries: z.number().int().min(0).max(10).optional(),
  /** How it continues a cut answer: `deepseek`, `mistral`, `moonshot`, `assistant`, or `false`. */
  prefill: z.union([z.enum(['deepseek', 'mistral', 'moonshot', 'assistant']), z.literal(false)]).optional(),
  /** Where a `deepseek` prefill goes (default baseUrl + `/beta`). */
  prefillBaseUrl: z.string().regex(/^https?:\/\//, 'an http(s) URL').optional(),
  /** Its model's context window, in tokens. */
  contextWindow: z.number().int().positive().optional(),
  /** Its deadlines in ms. */
  timeouts: z.strictObject({ connect: ms, headers: ms, silence: ms, firstChunk: ms, idle: ms }).partial().optional(),
});

/** One gateway route: the model name clients ask for → its targets and rules. */
const RouteSchema = z.strictObject({
  /** The primary and its fallbacks, in order. */
  targets: z.array(RouteTargetSchema).min(1),
  /** The circuit breaker of each target, or `false`. */
  breaker: z
    .union([
      z.literal(false),
      z.strictObject({
        consecutiveFailures: z.number().int().positive(),
        failureRate: z.number().gt(0).max(1),
        window: z.number().int().positive(),
        minimumCalls: z.number().int().positive(),
        coolDownMs: ms,
        distinctCallers: z.number().int().positive().max(100),
      }).partial(),
    ])
    .optional(),
  /** Silence budget of every target but the last, ms. */
  silenceMs: ms.optional(),
  /** A silent target hands over (default true). */
  failoverOnSilence: z.boolean().optional(),
  /** A content-policy rejection hands over (default false). */
  failoverOnContentPolicy: z.boolean().optional(),
  /** The most continuations of one cut answer (default 3). */
  maxContinuations: z.number().int().min(0).max(10).optional(),
  /** The most upstream requests of one client request, restarts included (default 6). */
  maxAttempts: z.number().int().min(1).max(50).optional(),
  /** The total deadline of one client request, ms from its start: nothing new starts past it (default 0: none). */
  deadlineMs: ms.optional(),
  /** The deadline from its start and again from each cut, ms (default CHATFLUX_DEADLINE_MS, else 60000; 0: none). */
  cutDeadlineMs: ms.optional(),
});

/** The route table: model name → route (`CHATFLUX_ROUTES`, and the config file's `routes` section). */
export const RoutesSchema = z.record(z.string().min(1), RouteSchema);

/** One target of a gateway route (see the README's "Failover" section). */
export type GatewayRouteTarget = Omit<z.infer<typeof RouteTargetSchema>, 'provider'> & { provider?: ProviderName | 'emulator' };
/** One gateway route. */
export type GatewayRoute = Omit<z.infer<typeof RouteSchema>, 'targets'> & { targets: GatewayRouteTarget[] };

/**
 * Reads the gateway's routes: `CHATFLUX_ROUTES` (JSON) or `CHATFLUX_ROUTES_FILE` (a path to the same JSON), an object
 * from the model name clients ask for to `{ targets: [...], breaker?, silenceMs?, failoverOnSilence?,
 * failoverOnContentPolicy?, maxContinuations?, maxAttempts?, deadlineMs?, cutDeadlineMs? }`. Checked with zod: unknown fields, wrong types and missing base URLs
 * are a `ConfigError` naming the variable and the path (`chat.targets.1.baseUrl: …`). API keys never appear in it:
 * `apiKeyEnv` names the variable holding one.
 *
 * @param env - The environment.
 * @returns The routes by model name; `undefined` when neither variable is set.
 * @throws ConfigError naming the variable and what to fix.
 */
export function loadRoutes(env: Record<string, string | undefined>): Record<string, GatewayRoute> | undefined {
  const inline = env['CHATFLUX_ROUTES']?.trim();
  const file = env['CHATFLUX_ROUTES_FILE']?.trim();
  if (inline && file) throw new ConfigError('set CHATFLUX_ROUTES or CHATFLUX_ROUTES_FILE, not both.');
  let name = 'CHATFLUX_ROUTES';
  let text = inline;
  if (file) {
    name = `CHATFLUX_ROUTES_FILE (${file})`;
    try {
      text = readFileSync(file, 'utf8');
    } catch (error) {
      throw new ConfigError(`CHATFLUX_ROUTES_FILE: cannot read ${JSON.stringify(file)}: ${(error as Error).message}`, { cause: error });
    }
    // A file named but empty is a mistake (a truncated deploy), not "no routes": the gateway would serve without them.
    if (text.trim() === '') throw new ConfigError(`${name} is empty; it should map model names to { "targets": [...] } (or unset CHATFLUX_ROUTES_FILE).`);
  }
  if (!text) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${name} is not valid JSON (${(error as Error).message}); it maps model names to { "targets": [...] }.`, { cause: error });
  }
  return checkRouteTable(json, name, env);
}

/**
 * Checks a route table (parsed JSON, or the config file's `routes`): the schema, then a base URL for every
 * `openai-compatible` target, no credentials in a URL, and each `apiKeyEnv` set in `env`.
 *
 * @param json - The table.
 * @param name - Where it came from, for the errors (`CHATFLUX_ROUTES`, `gateway.yaml: routes`).
 * @param env - The environment, where `apiKeyEnv` names a variable.
 * @param where - How an issue's path is named (default: its keys joined with dots; the config file adds the line).
 * @returns The routes by model name.
 * @throws ConfigError naming the table, the route and what to fix.
 */
export function checkRouteTable(
  json: unknown,
  name: string,
  env: Record<string, string | undefined>,
  where: (path: ReadonlyArray<PropertyKey>) => string = (path) => path.map(String).join('.') || '(root)',
): Record<string, GatewayRoute> {
  const parsed = RoutesSchema.safeParse(json);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 5).map((issue) => `${where(issue.path)}: ${issue.message}`);
    throw new ConfigError(`${name} is not a valid route table: ${issues.join('; ')}. See the README's "Failover" section.`);
  }
  for (const [model, route] of Object.entries(parsed.data)) {
    route.targets.forEach((target, i) => {
      if ((target.provider ?? 'openai-compatible') === 'openai-compatible' && target.baseUrl === undefined) {
        throw new ConfigError(`${name}: ${where([model, 'targets', i])} needs a baseUrl (or a provider preset such as "deepseek").`);
      }
      // Credentials in a URL are never sent (undici ignores them): refused, not echoed.
      for (const field of ['baseUrl', 'prefillBaseUrl'] as const) {
        if (/^https?:\/\/[^/?#]*@/i.test(target[field] ?? '')) {
          throw new ConfigError(`${name}: ${where([model, 'targets', i, field])} must not hold credentials (user:password@host): name the key's variable in apiKeyEnv.`);
        }
      }
      if (target.apiKeyEnv !== undefined && !env[target.apiKeyEnv]?.trim()) {
        throw new ConfigError(`${name}: ${where([model, 'targets', i, 'apiKeyEnv'])} names ${target.apiKeyEnv}, which is not set.`);
      }
    });
  }
  return parsed.data as Record<string, GatewayRoute>;
}
