import { z } from 'zod';
import { isStreamProtocolError, isToolCallError, type ToolCallError } from '../../src/core/errors';
import { createToolCallAssembler } from '../../src/operators/createToolCallAssembler';
import { chunkOf } from '../helpers/chunkOf';

const start = (index: number | undefined, id: string, name: string, args = '') => ({
  ...(index === undefined ? {} : { index }),
  id,
  type: 'function',
  function: { name, arguments: args },
});
const more = (index: number | undefined, args: string) => ({
  ...(index === undefined ? {} : { index }),
  function: { arguments: args },
});
const catchError = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('did not throw');
};

describe('createToolCallAssembler', () => {
  it('returns one shared frozen empty array when nothing completes', () => {
    const assembler = createToolCallAssembler();
    const a = assembler.push(chunkOf.content('hi'));
    const b = assembler.push(chunkOf.tools([start(0, 'call_1', 'f', '{')]));
    expect(a).toHaveLength(0);
    expect(b).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    expect(assembler.push(chunkOf.tools([more(0, '}')]))).toBe(a);
  });

  it('completes a call when a different call starts, and the last one at finish_reason', () => {
    const assembler = createToolCallAssembler();
    expect(assembler.push(chunkOf.tools([start(0, 'call_00_a', 'get_weather')]))).toEqual([]);
    expect(assembler.push(chunkOf.tools([more(0, '{"city":')]))).toEqual([]);
    expect(assembler.push(chunkOf.tools([more(0, '"北京"}')]))).toEqual([]);
    expect(assembler.push(chunkOf.tools([start(1, 'call_01_b', 'get_time', '{}')]))).toEqual([
      {
        id: 'call_00_a',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"city":"北京"}' },
        choiceIndex: 0,
      },
    ]);
    expect(assembler.push(chunkOf.finish('tool_calls'))).toEqual([
      { id: 'call_01_b', type: 'function', function: { name: 'get_time', arguments: '{}' }, choiceIndex: 0 },
    ]);
    expect(assembler.flush()).toEqual([]);
  });

  it('emits the pending calls of every choice at flush, by choice index', () => {
    const assembler = createToolCallAssembler();
    assembler.push(chunkOf.tools([start(0, 'b', 'fb', '{}')], 1));
    assembler.push(chunkOf.tools([start(0, 'a', 'fa', '{}')], 0));
    expect(assembler.flush().map((c) => [c.choiceIndex, c.id])).toEqual([
      [0, 'a'],
      [1, 'b'],
    ]);
    expect(assembler.flush()).toEqual([]);
  });

  it('completes several calls started in one chunk (whole arguments at once), the last at finish', () => {
    const assembler = createToolCallAssembler();
    const out = assembler.push(
      chunkOf.tools([
        start(0, 'x:0', 'f', '{"a":1}'),
        start(1, 'x:1', 'f', '{"a":2}'),
        start(2, 'x:2', 'f', '{"a":3}'),
      ]),
    );
    expect(out.map((c) => c.id)).toEqual(['x:0', 'x:1']);
    expect(assembler.push(chunkOf.finish('tool_calls')).map((c) => c.id)).toEqual(['x:2']);
  });

  it('emits frozen calls with id and type verbatim', () => {
    const assembler = createToolCallAssembler();
    assembler.push(
      chunkOf.tools([
        {
          index: 0,
          id: '$web_search:0',
          type: 'builtin_function',
          function: { name: '$web_search', arguments: '{"q":1}' },
        },
      ]),
    );
    const [call] = assembler.flush();
    expect(call).toEqual({
      id: '$web_search:0',
      type: 'builtin_function',
      function: { name: '$web_search', arguments: '{"q":1}' },
      choiceIndex: 0,
    });
    expect(Object.isFrozen(call)).toBe(true);
    expect(Object.isFrozen(call!.function)).toBe(true);
  });

  it("uses '' for an id and 'function' for a type the provider never sent", () => {
    const assembler = createToolCallAssembler();
    assembler.push(chunkOf.tools([{ index: 0, function: { name: 'f', arguments: '{}' } }]));
    expect(assembler.flush()).toEqual([
      { id: '', type: 'function', function: { name: 'f', arguments: '{}' }, choiceIndex: 0 },
    ]);
  });

  it('ignores a finish_reason of "" (some gateways send it on every chunk)', () => {
    const assembler = createToolCallAssembler();
    assembler.push(chunkOf.tools([start(0, 'c', 'f', '{')]));
    expect(assembler.push(chunkOf.delta({ tool_calls: [more(0, '}')] }, 0, ''))).toEqual([]);
    expect(assembler.flush().map((c) => c.function.arguments)).toEqual(['{}']);
  });

  it('rejects a fragment that extends a call already emitted (interleaved fragments) instead of emitting a wrong call', () => {
    const assembler = createToolCallAssembler();
    assembler.push(chunkOf.tools([start(0, 'a', 'f', '{"x":')]));
    expect(assembler.push(chunkOf.tools([start(1, 'b', 'g', '{}')]))).toHaveLength(1);
    const error = catchError(() => assembler.push(chunkOf.tools([more(0, '1}')])));
    expect(isStreamProtocolError(error)).toBe(true);
    expect((error as Error).message).toMatch(/tool call "a" of choice 0 arrived after the call was complete/);
  });

  it('tolerates an empty fragment for a call already emitted (it changes nothing)', () => {
    const assembler = createToolCallAssembler();
    assembler.push(chunkOf.tools([start(0, 'a', 'f', '{}')]));
    assembler.push(chunkOf.tools([start(1, 'b', 'g', '{}')]));
    expect(assembler.push(chunkOf.tools([more(0, '')]))).toEqual([]);
  });

  describe('schemas', () => {
    const schemas = {
      get_weather: z.object({ city: z.string(), days: z.number().int().default(1) }),
      noop: z.object({}),
    };

    it('parses and validates the arguments of a function with a schema into parsedArguments (schema output)', () => {
      const assembler = createToolCallAssembler({ schemas });
      assembler.push(chunkOf.tools([start(0, 'c1', 'get_weather', '{"city":"上海"}')]));
      assembler.push(chunkOf.tools([start(1, 'c2', 'other', 'not json')]));
      const calls = [...assembler.push(chunkOf.finish('tool_calls'))];
      expect(calls).toEqual([
        { id: 'c2', type: 'function', function: { name: 'other', arguments: 'not json' }, choiceIndex: 0 },
      ]);
      const fresh = createToolCallAssembler({ schemas });
      fresh.push(chunkOf.tools([start(0, 'c1', 'get_weather', '{"city":"上海"}')]));
      expect(fresh.flush()[0]!.parsedArguments).toEqual({ city: '上海', days: 1 });
    });

    it('reads blank arguments as {} for a schema (the text stays verbatim)', () => {
      const assembler = createToolCallAssembler({ schemas });
      assembler.push(chunkOf.tools([start(0, 'n', 'noop', '')]));
      expect(assembler.flush()).toEqual([
        { id: 'n', type: 'function', function: { name: 'noop', arguments: '' }, choiceIndex: 0, parsedArguments: {} },
      ]);
    });

    it('throws a ToolCallError naming the function and call id for invalid JSON', () => {
      const assembler = createToolCallAssembler({ schemas });
      assembler.push(chunkOf.tools([start(0, 'call_00_bad', 'get_weather', '{"city":')]));
      const error = catchError(() => assembler.push(chunkOf.finish('tool_calls'))) as ToolCallError;
      expect(isToolCallError(error)).toBe(true);
      expect(error.functionName).toBe('get_weather');
      expect(error.toolCallId).toBe('call_00_bad');
      expect(error.message).toContain('not valid JSON');
      expect(error.message).toContain('get_weather');
    });

    it('throws a ToolCallError naming the function, call id and failing path for a schema failure', () => {
      const assembler = createToolCallAssembler({ schemas });
      assembler.push(chunkOf.tools([start(0, 'get_weather:0', 'get_weather', '{"city":7}')]));
      const error = catchError(() => assembler.flush()) as ToolCallError;
      expect(isToolCallError(error)).toBe(true);
      expect(error.functionName).toBe('get_weather');
      expect(error.toolCallId).toBe('get_weather:0');
      expect(error.message).toMatch(/fail its schema: city: /);
    });

    it('does not look up inherited names (toString, constructor) as schemas', () => {
      const assembler = createToolCallAssembler({ schemas });
      assembler.push(chunkOf.tools([start(0, 'c', 'toString', 'x')]));
      expect(assembler.flush()[0]).not.toHaveProperty('parsedArguments');
    });
  });
});
