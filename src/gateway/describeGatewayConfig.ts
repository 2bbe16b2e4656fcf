import { DEFAULT_RETRY_POLICY } from '../core/retryPolicy.js';
import { DEFAULT_TIMEOUTS } from '../source/defaultTimeouts.js';
import { GATEWAY_DEFAULTS } from './GATEWAY_DEFAULTS.js';
import type { GatewayConfig } from './loadGatewayConfig.js';

/** A setting's value, or its default marked as such (`600000 ms (default)`). */
const orDefault = (value: number | undefined, fallback: number, unit = ''): string => (value === undefined ? `${fallback}${unit} (default)` : `${value}${unit}`);

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
    `max retries:  ${orDefault(config.maxRetries, DEFAULT_RETRY_POLICY.count)}`,
    `timeouts:     first chunk ${orDefault(config.firstChunkTimeoutMs, DEFAULT_TIMEOUTS.firstChunk, ' ms')}, idle ${orDefault(config.idleTimeoutMs, DEFAULT_TIMEOUTS.idle, ' ms')}`,
    `heartbeat:    ${config.heartbeatMs === 0 ? 'off' : `${config.heartbeatMs} ms`}`,
    `shutdown:     grace ${orDefault(config.shutdownGraceMs, GATEWAY_DEFAULTS.shutdownGraceMs, ' ms')}`,
  ];
  if (emulator) lines.push(`emulator:     ${orDefault(config.emulatorPaceMs, GATEWAY_DEFAULTS.emulatorPaceMs, ' ms')} between events`);
  if (config.gatewayKeys.length === 0) lines.push('WARNING: CHATFLUX_GATEWAY_KEYS is not set: the chat endpoints are open to anyone who can reach them.');
  return lines;
}
