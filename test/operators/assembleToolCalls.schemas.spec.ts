/**
 * assembleToolCalls accepts any synchronous Standard Schema: zod 3 (the `zod3` alias of zod@3, as a zod 3 user has
 * it) as well as zod 4 — in the types (this file type-checks with `npm run typecheck`) and at run time.
 */
import { lastValueFrom, of, toArray } from 'rxjs';
import { z as z4 } from 'zod';
import { z as z3 } from 'zod3';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { isToolCallError, type ToolCallError } from '../../src/core/errors';
import { assembleToolCalls } from '../../src/operators/assembleToolCalls';
import type { AssembleToolCallsConfig } from '../../src/operators/AssembleToolCallsConfig';
import type { ChatCompletionChunk } from '../../src/core/schemas/upstream';
import { chunkOf } from '../helpers/chunkOf';

const weatherCall = (args: string): ChatCompletionChunk[] => [
  chunkOf.tools([{ index: 0, id: 'call_w', type: 'function', function: { name: 'get_weather', arguments: args.slice(0, 5) } }]),
  chunkOf.tools([{ index: 0, function: { arguments: args.slice(5) } }]),
  chunkOf.finish('tool_calls'),
];
// What a zod 3 user writes (a type error when `schemas` took zod 4's ZodType only).
const zod3Config: AssembleToolCallsConfig = { schemas: { get_weather: z3.object({ city: z3.string() }) } };
const zod3Operator = assembleToolCalls({ schemas: { get_weather: z3.object({ city: z3.string() }) } });

it('takes zod 3 schemas as they are, in the types and at run time', async () => {
  const calls = await lastValueFrom(of(...weatherCall('{"city":"上海"}')).pipe(zod3Operator, toArray()));
  expect(calls.map((call) => call.parsedArguments)).toEqual([{ city: '上海' }]);
  expect(Object.keys(zod3Config.schemas ?? {})).toEqual(['get_weather']);
});

const assemble = (args: string, schemas: Record<string, StandardSchemaV1>) => lastValueFrom(of(...weatherCall(args)).pipe(assembleToolCalls({ schemas }), toArray()));

describe.each([
  ['zod 3', { get_weather: z3.object({ city: z3.string(), days: z3.number().int().default(1) }) }],
  ['zod 4', { get_weather: z4.object({ city: z4.string(), days: z4.number().int().default(1) }) }],
])('assembleToolCalls with %s schemas', (_name, schemas) => {
  it("gives the schema's output as parsedArguments (defaults applied)", async () => {
    const [call] = await assemble('{"city":"北京"}', schemas);
    expect(call?.parsedArguments).toEqual({ city: '北京', days: 1 });
  });

  it("ends with a ToolCallError listing the schema's issues by path", async () => {
    const error = (await assemble('{"city":7,"days":1.5}', schemas).catch((e: unknown) => e)) as ToolCallError;
    expect(isToolCallError(error)).toBe(true);
    expect(error.message).toMatch(/^the arguments of tool call "call_w" to "get_weather" fail its schema: city: .+; days: .+/);
  });
});

it('refuses a schema that validates asynchronously, saying so', async () => {
  const asyncSchema: StandardSchemaV1 = { '~standard': { version: 1, vendor: 'test', validate: async (value) => ({ value }) } };
  const error = (await assemble('{"city":"x"}', { get_weather: asyncSchema }).catch((e: unknown) => e)) as ToolCallError;
  expect(isToolCallError(error)).toBe(true);
  expect(error.message).toContain('validates asynchronously');
});
