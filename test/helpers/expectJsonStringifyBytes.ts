import fc from 'fast-check';

/**
 * Asserts that `encode` writes JSON.stringify's exact text for each of `cases`, for values that are not objects at
 * all (a string, `null`, an array, `undefined`), and for any JSON value fast-check makes: a template that takes only
 * its own shape falls back to JSON.stringify for everything else.
 *
 * @param encode - The stringifier under test.
 * @param cases - Values off the template's shape, each chosen for a way a template could misread it.
 */
export function expectJsonStringifyBytes(encode: (value: unknown) => string | undefined, cases: readonly unknown[]): void {
  for (const value of [...cases, 'text', null, [1, 2], undefined]) expect(encode(value)).toBe(JSON.stringify(value));
  fc.assert(fc.property(fc.jsonValue(), (value) => expect(encode(value)).toBe(JSON.stringify(value))));
}
