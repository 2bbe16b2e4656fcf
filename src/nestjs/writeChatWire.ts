import type { ServerResponse } from 'node:http';
import type { Observable } from 'rxjs';
import { sendJson } from '../node/sendJson.js';
import { sendNdjson } from '../node/sendNdjson.js';
import { sendSse } from '../node/sendSse.js';
import type { WriteOutcome, WriteResponseConfig } from '../node/index.js';
import type { ChatWireFormat } from './ChatWireFormat.js';

/**
 * Writes `output` onto `res` in `format` with the node writers of `chatflux/node` — the code behind the Express
 * router, hence the same bytes, statuses, headers, heartbeats, backpressure and disconnect handling. An error
 * notification before the first byte becomes a real status and the format's error body.
 *
 * @returns The writer's promise of the outcome (it never rejects).
 */
export function writeChatWire(
  format: ChatWireFormat,
  res: ServerResponse,
  output: Observable<unknown>,
  config: WriteResponseConfig,
): Promise<WriteOutcome> {
  if (format === 'json') {
    const { demand: _demand, heartbeatMs: _heartbeatMs, ...jsonConfig } = config;
    return sendJson(res, output, jsonConfig);
  }
  if (format === 'ndjson') {
    const { heartbeatMs: _heartbeatMs, ...ndjsonConfig } = config;
    return sendNdjson(res, output, ndjsonConfig);
  }
  return sendSse(res, output, config);
}
