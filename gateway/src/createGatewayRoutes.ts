import { type ChatClient, createChatRoute, type ChatRouteConfig, type ChatRouteEvent, type ChatRouteTarget, type TelemetryConfig } from 'chatflux';
import type { GatewayConfig } from './loadGatewayConfig.js';

/**
 * The gateway's routes (`config.routes`) as chat routes: each target a client of its provider (or of the built-in
 * emulator, which continues DeepSeek-style prefixes), with its own retries and deadlines, the gateway's answer cap
 * and `/chat/json` deadline, and every attempt and breaker transition told to `onEvent`.
 *
 * A target's deadlines are its own `timeouts`, else the gateway's: `CHATFLUX_IDLE_TIMEOUT_MS` for every target;
 * `CHATFLUX_HEADERS_TIMEOUT_MS`, `CHATFLUX_SILENCE_TIMEOUT_MS` and `CHATFLUX_FIRST_CHUNK_TIMEOUT_MS` for the last
 * target only — the others get the route's first-token budget (`silenceMs`) as their headers and silence deadlines,
 * after which the next target answers. A route's `cutDeadlineMs` defaults to `CHATFLUX_DEADLINE_MS` (its `deadlineMs`,
 * the total one, to none).
 *
 * @param config - The gateway's configuration (its `routes` and `routeKeys`).
 * @param emulatorUrl - The built-in emulator's base URL, for targets whose provider is `emulator`.
 * @param onEvent - Receives every route event.
 * @param telemetry - The gateway's telemetry: every target's calls get their spans and GenAI metrics.
 * @param sharing - The breaker store every route shares its breakers through (Redis, with `CHATFLUX_REDIS_URL`), and
 *   where its outages are told.
 * @returns The routes by model name.
 */
export function createGatewayRoutes(
  config: GatewayConfig,
  emulatorUrl: string | undefined,
  onEvent?: (event: ChatRouteEvent) => void,
  telemetry?: TelemetryConfig,
  sharing: Pick<ChatRouteConfig, 'breakerStore' | 'onBreakerStoreError'> = {},
): Record<string, ChatClient> {
  const routes: Record<string, ChatClient> = {};
  const idle = config.idleTimeoutMs === undefined ? {} : { idle: config.idleTimeoutMs };
  const lastTimeouts = {
    ...(config.headersTimeoutMs === undefined ? {} : { headers: config.headersTimeoutMs }),
    ...(config.silenceTimeoutMs === undefined ? {} : { silence: config.silenceTimeoutMs }),
    ...(config.firstChunkTimeoutMs === undefined ? {} : { firstChunk: config.firstChunkTimeoutMs }),
    ...idle,
  };
  for (const [model, route] of Object.entries(config.routes ?? {})) {
    const last = route.targets.length - 1;
    const targets = route.targets.map((target, position): ChatRouteTarget => {
      const { provider, apiKeyEnv, retries, baseUrl, timeouts, ...rest } = target;
      const inherited = position === last ? lastTimeouts : idle;
      const out: ChatRouteTarget = { ...rest, timeouts: { ...inherited, ...timeouts } };
      if (provider === 'emulator') {
        out.baseUrl = emulatorUrl!;
        out.model = target.model ?? 'deepseek-chat';
        out.prefill = target.prefill ?? 'deepseek';
        out.name = target.name ?? `emulator:${out.model}`;
      } else {
        if (provider !== undefined) out.provider = provider;
        if (baseUrl !== undefined) out.baseUrl = baseUrl;
      }
      const key = apiKeyEnv === undefined ? undefined : config.routeKeys?.[apiKeyEnv];
      if (key !== undefined) out.apiKey = key;
      const retry = retries ?? config.maxRetries;
      if (retry !== undefined) out.retry = retry;
      if (config.requireDone !== undefined) out.requireDone = config.requireDone;
      if (config.upstreamConnections !== undefined) out.connections = config.upstreamConnections;
      if (config.connectionWaitMs !== undefined) out.connectionWaitMs = config.connectionWaitMs;
      if (telemetry !== undefined) out.telemetry = telemetry;
      return out;
    });
    routes[model] = createChatRoute({
      name: model,
      targets,
      ...(route.breaker === undefined ? {} : { breaker: route.breaker }),
      ...(route.silenceMs === undefined ? {} : { silenceMs: route.silenceMs }),
      ...(route.failoverOnSilence === undefined ? {} : { failoverOnSilence: route.failoverOnSilence }),
      ...(route.failoverOnContentPolicy === undefined ? {} : { failoverOnContentPolicy: route.failoverOnContentPolicy }),
      ...(route.maxContinuations === undefined ? {} : { maxContinuations: route.maxContinuations }),
      ...(route.maxAttempts === undefined ? {} : { maxAttempts: route.maxAttempts }),
      ...(route.deadlineMs === undefined ? {} : { deadlineMs: route.deadlineMs }),
      ...((route.cutDeadlineMs ?? config.deadlineMs) === undefined ? {} : { cutDeadlineMs: route.cutDeadlineMs ?? config.deadlineMs }),
      ...(config.jsonTimeoutMs === undefined ? {} : { jsonTimeoutMs: config.jsonTimeoutMs }),
      ...(config.maxAnswerChars === undefined ? {} : { maxAnswerChars: config.maxAnswerChars }),
      ...(onEvent === undefined ? {} : { onEvent }),
      ...sharing,
    });
  }
  return routes;
}
