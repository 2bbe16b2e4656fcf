import { GATEWAY_DEFAULTS } from './GATEWAY_DEFAULTS.js';
import type { GatewayConfig } from './loadGatewayConfig.js';
import { packageVersion } from './packageVersion.js';

/** A setting's value, or its default marked as such (`600000 ms (default)`). */
const orDefault = (value: number | undefined, fallback: number, unit = ''): string => (value === undefined ? `${fallback}${unit} (default)` : `${value}${unit}`);

/**
 * The gateway's configuration as printable lines (after the gateway's version and the library's), without secrets: the API key and the gateway keys appear only as
 * "set" / a count, the token secret as "set" / "random per process".
 *
 * @param config - The configuration.
 * @returns Lines to print at start (the last one a warning when the gateway is open).
 */
export function describeGatewayConfig(config: GatewayConfig): string[] {
  const { http, process, upstream, limits, serve, streams } = GATEWAY_DEFAULTS;
  const emulator = config.provider === 'emulator';
  const lines = [
    `version:      chatflux-gateway ${packageVersion()} (chatflux ${packageVersion('chatflux')})`,
    ...(config.configFile === undefined ? [] : [`config file:  ${config.configFile} (CHATFLUX_* variables set over it)`]),
    `provider:     ${config.provider}${emulator ? ' (built-in, in-process; set upstream.provider or CHATFLUX_PROVIDER for a real one)' : ''}`,
    `base URL:     ${emulator ? '(the emulator)' : (config.baseUrl ?? '(preset)')}`,
    `API key:      ${config.apiKey === undefined ? 'not set' : 'set'}`,
    `model:        ${config.model ?? (emulator ? 'deepseek-chat' : '(preset default)')}`,
    `gateway keys: ${config.gatewayKeys.length === 0 ? 'none' : `${config.gatewayKeys.length} configured`}`,
    `max retries:  ${orDefault(config.maxRetries, upstream.retry)}`,
    `timeouts:     first chunk ${orDefault(config.firstChunkTimeoutMs, upstream.timeouts.firstChunk, ' ms')}, idle ${orDefault(config.idleTimeoutMs, upstream.timeouts.idle, ' ms')}`,
    `budget:       silence ${orDefault(config.silenceTimeoutMs, upstream.timeouts.silence, ' ms')} before the first chunk, no retry after ${orDefault(config.deadlineMs, upstream.timeouts.deadline, ' ms')}`,
    `heartbeat:    ${config.heartbeatMs === 0 ? 'off' : `${config.heartbeatMs} ms`}`,
    `stream end:   ${config.requireDone === true ? 'data: [DONE] required' : '[DONE], or EOF after every finish_reason'}`,
    `upstream:     ${orDefault(config.upstreamConnections, limits.connections)} connections, wait ${orDefault(config.connectionWaitMs, limits.connectionWaitMs, ' ms')}, headers timeout ${orDefault(config.headersTimeoutMs, upstream.timeouts.headers, ' ms')}`,
    `limits:       ${orDefault(config.maxConcurrentPerClient, serve.maxConcurrentPerClient)} requests per client, /chat/json answer ${orDefault(config.maxAnswerChars, limits.maxAnswerChars, ' chars')}${config.jsonTimeoutMs === undefined ? ', no deadline' : ` within ${config.jsonTimeoutMs} ms`}`,
    `choices:      ${config.allowSeveralChoices === true ? 'n > 1 forwarded on /chat/* (only the first choice is answered)' : 'n > 1 refused on /chat/* (default)'}`,
    `clients:      write stall timeout ${config.writeStallTimeoutMs === 0 ? 'off' : orDefault(config.writeStallTimeoutMs, serve.writeStallTimeoutMs, ' ms')}`,
    `connections:  idle kept open ${orDefault(config.keepAliveTimeoutMs, http.keepAliveTimeoutMs, ' ms')}`,
    `tokens:       ${
      config.gatewayKeys.length === 0
        ? 'none (open: GET /chat/sse needs no token)'
        : `POST /chat/token, valid ${orDefault(config.tokenTtlMs, serve.tokenTtlMs, ' ms')}, secret ${config.tokenSecret === undefined ? 'random per process' : 'set'}`
    }`,
    `shutdown:     grace ${orDefault(config.shutdownGraceMs, process.shutdownGraceMs, ' ms')}`,
    `resumable:    ${
      config.resumable === false
        ? 'off (a disconnect aborts the upstream)'
        : `${config.redisUrl === undefined ? 'in memory (this instance only)' : 'Redis (every instance)'}, abandoned after ${orDefault(config.abandonAfterMs, streams.abandonAfterMs, ' ms')} without a reader, kept ${orDefault(config.streamRetentionMs, streams.retentionMs, ' ms')}`
    }`,
  ];
  const otlp = config.otlp === undefined ? 'no OTLP export' : `OTLP ${[config.otlp.traces ? 'traces' : '', config.otlp.metrics ? 'metrics' : ''].filter(Boolean).join(' + ')}`;
  lines.push(`telemetry:    GET /metrics (${config.metricsToken === undefined ? 'open' : 'Bearer token set'}), ${otlp}`);
  if (emulator) lines.push(`emulator:     ${orDefault(config.emulatorPaceMs, upstream.emulator.paceMs, ' ms')} between events`);
  const policy = config.requestPolicy;
  if (policy !== undefined) {
    const rules = [
      policy.allowedModels === undefined ? undefined : `models ${policy.allowedModels.join(', ')}`,
      policy.maxTokens === undefined ? undefined : `max tokens ${policy.maxTokens}`,
      policy.maxN === undefined ? undefined : `max n ${policy.maxN}`,
      policy.stripFields === undefined ? undefined : `strips ${policy.stripFields.join(', ')}`,
    ];
    lines.push(`requests:     ${rules.filter((rule) => rule !== undefined).join('; ')}`);
  }
  for (const [model, route] of Object.entries(config.routes ?? {})) {
    const targets = route.targets.map((t) => t.name ?? `${t.provider ?? 'openai-compatible'}:${t.model ?? 'default'}`);
    lines.push(`route:        ${model} → ${targets.join(' → ')}`);
  }
  if (config.gatewayKeys.length === 0) lines.push('WARNING: CHATFLUX_GATEWAY_KEYS is not set: the chat endpoints are open to anyone who can reach them.');
  return lines;
}
