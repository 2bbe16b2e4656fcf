import { ConfigError } from '../../src/core/errors';
import { parseScenario } from '../../src/testing/parseScenario';

describe('parseScenario', () => {
  it('parses an empty text as the healthy scenario', () => {
    expect(parseScenario('')).toEqual({});
    expect(parseScenario(' ; ;')).toEqual({});
  });

  it('parses every item of the grammar', () => {
    expect(
      parseScenario(
        'status=429;retry-after=2;retry-after-ms=1500;error-type=engine_overloaded_error;error-message=busy;' +
          'fail-first=2:503;queue=500;keep-alive=50;headers-delay=10;pace=5;stall-after=3;eof-after=4;reset-after=5;' +
          'reset-before-headers;malformed-json-at=2;error-event-at=6;error-payload-at=7;bare-line-at=1;huge-event=100;' +
          'invalid-utf8-at=2;no-space;crlf;finish=insufficient_system_resource;split=random;split-delay=2;' +
          'html-status=502;content-type=application/json;tokens=20000;no-tool-index',
      ),
    ).toEqual({
      status: 429,
      retryAfter: 2,
      retryAfterMs: 1500,
      errorType: 'engine_overloaded_error',
      errorMessage: 'busy',
      failFirst: { count: 2, status: 503 },
      queueMs: 500,
      keepAliveMs: 50,
      headersDelayMs: 10,
      paceMs: 5,
      stallAfter: 3,
      eofAfter: 4,
      resetAfter: 5,
      resetBeforeHeaders: true,
      malformedJsonAt: 2,
      errorEventAt: 6,
      errorPayloadAt: 7,
      bareLineAt: 1,
      hugeEvent: 100,
      invalidUtf8At: 2,
      noSpace: true,
      crlf: true,
      finish: 'insufficient_system_resource',
      split: 'random',
      splitDelayMs: 2,
      htmlStatus: 502,
      contentType: 'application/json',
      tokens: 20000,
      noToolIndex: true,
    });
  });

  it("parses a tool loop's model items", () => {
    expect(parseScenario('tool-steps=2;invalid-tool-args=1;reuse-tool-index')).toEqual({ toolSteps: 2, invalidToolArgs: 1, reuseToolIndex: true });
    expect(() => parseScenario('tool-steps=two')).toThrow('"tool-steps" needs a non-negative integer');
    expect(() => parseScenario('reuse-tool-index=1')).toThrow('"reuse-tool-index" takes no value');
  });

  it('parses the provider-quirk items, and refuses values it does not know', () => {
    expect(
      parseScenario('no-done;azure-filter;reasoning-field=reasoning;content-parts;usage-in=x_groq;refusal'),
    ).toEqual({
      noDone: true,
      azureFilter: true,
      reasoningField: 'reasoning',
      contentParts: true,
      usageIn: 'x_groq',
      refusal: true,
    });
    expect(() => parseScenario('reasoning-field=thoughts')).toThrow(/reasoning or reasoning_content/);
    expect(() => parseScenario('usage-in=choice')).toThrow(/takes x_groq/);
    expect(() => parseScenario('refusal=1')).toThrow(/takes no value/);
  });

  it('defaults fail-first to 503 and reads split sizes and offsets', () => {
    expect(parseScenario('fail-first=1')).toEqual({ failFirst: { count: 1, status: 503 } });
    expect(parseScenario('split=7')).toEqual({ split: 7 });
    expect(parseScenario('split=10,3,26')).toEqual({ split: [10, 3, 26] });
    expect(parseScenario('html-200')).toEqual({ htmlStatus: 200 });
  });

  it('ignores whitespace and the case of keys; later items win', () => {
    expect(parseScenario('  PACE = 5 ; pace=7 ')).toEqual({ paceMs: 7 });
  });

  it('rejects unknown items and bad values with a ConfigError that says what to write', () => {
    expect(() => parseScenario('explode')).toThrow(ConfigError);
    expect(() => parseScenario('explode')).toThrow(/unknown item "explode"/);
    expect(() => parseScenario('pace=fast')).toThrow(/"pace" needs a non-negative integer, as in "pace=3"/);
    expect(() => parseScenario('crlf=1')).toThrow(/takes no value/);
    expect(() => parseScenario('finish=')).toThrow(/needs a value/);
  });
});
