import { ConfigError } from '../core/errors.js';
import type { ChatClientRequest } from '../client/createChatClient.js';
import type { ToolDefinition } from '../core/schemas/upstream.js';
import type { RunToolsConfig } from './RunToolsConfig.js';
import type { RunnableTool } from './RunnableTool.js';
import { toolDefinitions } from './toolDefinitions.js';

/** The default of `maxSteps`, as the AI SDK's `stepCountIs(20)`. */
export const DEFAULT_MAX_STEPS = 20;
/** The most `maxSteps` may be: a loop is a conversation, not a job queue. */
const MAX_STEPS_CAP = 1000;

/** {@link RunToolsConfig} checked once, with its defaults. */
export interface RunToolsSettings {
  /** The tools, by name. */
  readonly tools: Readonly<Record<string, RunnableTool>>;
  /** The request's `tools`: its own, else the tools' definitions. */
  readonly definitions: readonly ToolDefinition[];
  /** Requests at most. */
  readonly maxSteps: number;
  /** Calls of a step at once. */
  readonly parallel: number;
  /** What a failing tool does. */
  readonly toolErrors: 'end' | 'report';
  /** The options as given. */
  readonly config: RunToolsConfig;
}

const describe = (value: unknown): string => (typeof value === 'function' ? 'a function' : value === null ? 'null' : typeof value === 'object' ? 'an object' : JSON.stringify(value) ?? String(value));

/**
 * Checks `runTools`' arguments, so that a wrong call fails at once, saying how to fix it.
 *
 * @throws ConfigError for a client without `chunks`, a request without messages or asking for several choices, a
 *   tool without a Standard Schema or `execute`, a `maxSteps` outside 1–1000, a `parallel` below 1, a `toolErrors`
 *   other than `'end'` / `'report'`, a `stopWhen` or `approve` that is not a function.
 */
export function resolveRunToolsConfig(client: unknown, request: ChatClientRequest, config: RunToolsConfig): RunToolsSettings {
  if (typeof (client as { chunks?: unknown } | null)?.chunks !== 'function')
    throw new ConfigError(`runTools: \`client\` must be a chat client (\`createChatClient(…)\` or \`createChatRoute(…)\`), got ${describe(client)}.`);
  if (typeof request !== 'object' || request === null || !Array.isArray(request.messages) || request.messages.length === 0)
    throw new ConfigError("runTools: `request` needs `messages`, at least one, e.g. `{ messages: [{ role: 'user', content: '…' }] }`.");
  if (typeof request.n === 'number' && request.n > 1)
    throw new ConfigError('runTools: the loop follows one answer; remove `n` from the request (or set it to 1).');
  if (typeof config !== 'object' || config === null || typeof config.tools !== 'object' || config.tools === null)
    throw new ConfigError('runTools: `config` must be an object with `tools`, e.g. `{ tools: { get_weather: defineTool({ schema, execute }) } }`.');
  for (const [name, tool] of Object.entries(config.tools)) {
    if (typeof (tool as { schema?: { '~standard'?: { validate?: unknown } } } | null)?.schema?.['~standard']?.validate !== 'function')
      throw new ConfigError(`runTools: tools.${name} needs \`schema\`, a Standard Schema of its arguments (zod 4, zod 3.24+, valibot, ArkType), e.g. \`z.object({ city: z.string() })\`.`);
    if (typeof tool.execute !== 'function')
      throw new ConfigError(`runTools: tools.${name} needs \`execute(args, { signal })\`, a function returning the result (a value, a Promise or an Observable).`);
  }
  const maxSteps = config.maxSteps ?? DEFAULT_MAX_STEPS;
  if (!Number.isInteger(maxSteps) || maxSteps < 1 || maxSteps > MAX_STEPS_CAP)
    throw new ConfigError(`runTools: \`maxSteps\` must be an integer from 1 to ${MAX_STEPS_CAP}, got ${describe(maxSteps)}; omit it for ${DEFAULT_MAX_STEPS}.`);
  const parallel = config.parallel ?? Infinity;
  if (!(parallel === Infinity || (Number.isInteger(parallel) && parallel >= 1)))
    throw new ConfigError(`runTools: \`parallel\` must be a positive integer or Infinity, got ${describe(parallel)}; omit it to run a step's calls all at once.`);
  const toolErrors = config.toolErrors ?? 'end';
  if (toolErrors !== 'end' && toolErrors !== 'report')
    throw new ConfigError(`runTools: \`toolErrors\` is 'end' (a failing tool ends the loop) or 'report' (the model is told), got ${describe(toolErrors)}.`);
  for (const hook of ['stopWhen', 'approve'] as const)
    if (config[hook] !== undefined && typeof config[hook] !== 'function')
      throw new ConfigError(`runTools: \`${hook}\` must be a function, got ${describe(config[hook])}.`);
  const definitions = request.tools ?? toolDefinitions(config.tools);
  return { tools: config.tools, definitions, maxSteps, parallel, toolErrors, config };
}
