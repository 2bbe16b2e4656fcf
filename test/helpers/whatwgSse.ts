import type { SseEvent } from '../../src/core/types';

/**
 * A deliberately naive, whole-input reference of the WHATWG event-stream interpretation (HTML §9.2.6), used as the
 * oracle for parseSse's property tests. `text` is the decoded stream. The last event ID is reported as chatflux does:
 * absent while it is the empty string.
 */
export function whatwgSse(text: string): SseEvent[] {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const events: SseEvent[] = [];
  const lines = text.split(/\r\n|\r|\n/);
  lines.pop(); // the part after the last line terminator is not a line: end of file discards it
  let data = '';
  let type = '';
  let lastId = '';
  for (const line of lines) {
    if (line === '') {
      if (data === '') {
        type = '';
        continue;
      }
      const event: SseEvent = { data: data.endsWith('\n') ? data.slice(0, -1) : data };
      if (type !== '') event.event = type;
      if (lastId !== '') event.id = lastId;
      events.push(event);
      data = '';
      type = '';
      continue;
    }
    if (line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') type = value;
    else if (field === 'data') data += `${value}\n`;
    else if (field === 'id' && !value.includes('\0')) lastId = value;
  }
  return events;
}
