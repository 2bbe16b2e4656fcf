import { ConfigError } from '../../src/core/errors';
import { OPENAI_JSON_WIRE } from '../../src/wire/OPENAI_JSON_WIRE';
import { OPENAI_WIRE } from '../../src/wire/OPENAI_WIRE';

const body = { message: 'upstream busy', type: 'upstream_error', code: 'upstream_http' };
const openAiError = '{"error":{"message":"upstream busy","type":"upstream_error","param":null,"code":"upstream_http"}}';

describe('OPENAI_WIRE (the POST /v1/chat/completions stream)', () => {
  it('writes each value as one data frame, the end as [DONE], a heartbeat as a comment', () => {
    const chunk = { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [] };
    expect(OPENAI_WIRE.encode(chunk)).toBe(`data: ${JSON.stringify(chunk)}\n\n`);
    expect(OPENAI_WIRE.trailer).toBe('data: [DONE]\n\n');
    expect(OPENAI_WIRE.heartbeat).toBe(': keep-alive\n\n');
    expect(OPENAI_WIRE.headers['Content-Type']).toBe('text/event-stream');
  });

  it("writes an in-band error as OpenAI's error object, without [DONE] after it", () => {
    expect(OPENAI_WIRE.encodeError(body)).toBe(`data: ${openAiError}\n\n`);
  });

  it('rejects a value without a JSON form with a ConfigError saying what to emit', () => {
    expect(() => OPENAI_WIRE.encode(undefined)).toThrow(ConfigError);
    expect(() => OPENAI_WIRE.encode(() => 1)).toThrow(/emit chat\.completion\.chunk objects/);
  });

  it('answers an error before the commit as JSON (OPENAI_JSON_WIRE)', () => {
    expect(OPENAI_WIRE.errorResponse).toBe(OPENAI_JSON_WIRE);
  });
});

describe('OPENAI_JSON_WIRE (the whole answer, and errors before the commit)', () => {
  it("writes the value as JSON and an error as OpenAI's error body", () => {
    expect(OPENAI_JSON_WIRE.streaming).toBe(false);
    expect(OPENAI_JSON_WIRE.headers).toEqual({ 'Content-Type': 'application/json' });
    expect(OPENAI_JSON_WIRE.encode({ a: 1 })).toBe('{"a":1}');
    expect(OPENAI_JSON_WIRE.encodeError(body)).toBe(openAiError);
  });
});
