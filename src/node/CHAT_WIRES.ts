import type { ServerResponse } from 'node:http';
import type { Observable } from 'rxjs';
import { SERVING_WIRES, type ChatWireFormat, type ServingWire } from '../serve/SERVING_WIRES.js';
import type { WriteOutcome } from '../serve/WriteOutcome.js';
import { ANTHROPIC_JSON_WIRE } from '../wire/ANTHROPIC_JSON_WIRE.js';
import { ANTHROPIC_WIRE } from '../wire/ANTHROPIC_WIRE.js';
import { EVENT_SOURCE_WIRE } from '../wire/EVENT_SOURCE_WIRE.js';
import { UI_MESSAGE_WIRE } from '../wire/UI_MESSAGE_WIRE.js';
import { OPENAI_JSON_WIRE } from '../wire/OPENAI_JSON_WIRE.js';
import { OPENAI_WIRE } from '../wire/OPENAI_WIRE.js';
import { sendJson } from './sendJson.js';
import { sendNdjson } from './sendNdjson.js';
import { sendSse } from './sendSse.js';
import { writeResponse, type WriteResponseConfig } from './writeResponse.js';

export type { ChatWireFormat } from '../serve/SERVING_WIRES.js';

/** Everything that differs between the endpoints over `node:http`: the serving core's wire, and its writer. */
export interface ChatWire extends ServingWire {
  /** The HTTP writer (`sendJson`, `sendNdjson`, `sendSse`); options a wire has no use for are ignored. */
  send(res: ServerResponse, source: Observable<unknown>, config: WriteResponseConfig): Promise<WriteOutcome>;
}

const sendEventSource: ChatWire['send'] = (res, source, config) => writeResponse(res, source, EVENT_SOURCE_WIRE, config);
const sendOpenAiJson: ChatWire['send'] = (res, source, config) => writeResponse(res, source, OPENAI_JSON_WIRE, config);
const sendOpenAi: ChatWire['send'] = (res, source, config) => writeResponse(res, source, OPENAI_WIRE, config);
const sendAnthropicJson: ChatWire['send'] = (res, source, config) => writeResponse(res, source, ANTHROPIC_JSON_WIRE, config);
const sendAnthropic: ChatWire['send'] = (res, source, config) => writeResponse(res, source, ANTHROPIC_WIRE, config);
const sendUi: ChatWire['send'] = (res, source, config) => writeResponse(res, source, UI_MESSAGE_WIRE, config);

/**
 * THE wire → writer table of `node:http`: the serving core's table (`SERVING_WIRES`: path, formatter, client call)
 * with each wire's writer. The node adapter (`createChatEndpoints`, hence Express's `chatRouter` and NestJS's module),
 * the NestJS decorators and filter, and the gateway's refusals all choose here — nowhere else.
 */
export const CHAT_WIRES: Readonly<Record<ChatWireFormat, ChatWire>> = {
  json: { ...SERVING_WIRES.json, send: sendJson },
  ndjson: { ...SERVING_WIRES.ndjson, send: sendNdjson },
  sse: { ...SERVING_WIRES.sse, send: sendSse },
  eventsource: { ...SERVING_WIRES.eventsource, send: sendEventSource },
  openai: { ...SERVING_WIRES.openai, send: sendOpenAiJson },
  'openai-sse': { ...SERVING_WIRES['openai-sse'], send: sendOpenAi },
  anthropic: { ...SERVING_WIRES.anthropic, send: sendAnthropicJson },
  'anthropic-sse': { ...SERVING_WIRES['anthropic-sse'], send: sendAnthropic },
  ui: { ...SERVING_WIRES.ui, send: sendUi },
};
