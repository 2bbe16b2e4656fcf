import type { GatewayConfig } from './loadGatewayConfig.js';

/**
 * The gateway's configuration as printable lines, without secrets: the API key and the gateway keys appear only as
 * "set" / a count.
 *
 * @param config - The configuration.
 * @returns Lines to print at start (the last one a warning when the gateway is open).
 */
export function describeGatewayConfig(config: GatewayConfig): string[] {
  const emulator = config.provider === 'emulator';
  const lines = [
    `provider:     ${config.provider}${emulator ? ' (built-in, in-process; set CHATFLUX_PROVIDER for a real one)' : ''}`,
    `base URL:     ${emulator ? '(the emulator)' : (config.baseUrl ?? '(preset)')}`,
    `API key:      ${config.apiKey === undefined ? 'not set' : 'set'}`,
    `model:        ${config.model ?? (emulator ? 'deepseek-chat' : '(preset default)')}`,
    `gateway keys: ${config.gatewayKeys.length === 0 ? 'none' : `${config.gatewayKeys.length} configured`}`,
    `max retries:  ${config.maxRetries ?? '(default)'}`,
    `timeouts:     first chunk ${config.firstChunkTimeoutMs ?? '(default)'} ms, idle ${config.idleTimeoutMs ?? '(default)'} ms`,
    `heartbeat:    ${config.heartbeatMs === 0 ? 'off' : `${config.heartbeatMs} ms`}`,
    `stream end:   ${config.requireDone === true ? 'data: [DONE] required' : '[DONE], or EOF after every finish_reason'}`,
    `upstream:     ${config.upstreamConnections ?? '(default)'} connections, wait ${config.connectionWaitMs ?? '(default)'} ms, headers timeout ${config.headersTimeoutMs ?? '(default)'} ms`,
    `limits:       ${config.maxConcurrentPerClient ?? '(default)'} requests per client, /chat/json answer ${config.maxAnswerChars ?? '(default)'} chars within ${config.jsonTimeoutMs ?? '(no)'} ms`,
  ];
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
  if (config.gatewayKeys.length === 0) lines.push('WARNING: CHATFLUX_GATEWAY_KEYS is not set: the chat endpoints are open to anyone who can reach them.');
  return lines;
}
