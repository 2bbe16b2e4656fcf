/**
 * `ServingSettingsConfig` (what `resolveServingSettings` reads) is declared in a file of its own so that the settings
 * do not import the endpoints that use them (no circle, type imports included). Until `ChatEndpointsConfig` is made of
 * it, each of its fields must stay declared as `ChatEndpointsConfig` declares it — its type and its documentation — so
 * the two cannot drift: this reads both declarations with the TypeScript compiler and compares them field by field.
 * (Once `ChatEndpointsConfig` extends `ServingSettingsConfig`, there is no copy left: the fields it declares itself are
 * then none of these.)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const SRC = join(__dirname, '..', '..', 'src');

/** The interface `name` declared in a file of src/node/, with its members as written (TSDoc included) by name. */
function interfaceOf(name: string): { members: Map<string, string>; extends: string[] } {
  for (const file of readdirSync(join(SRC, 'node')).filter((f) => f.endsWith('.ts'))) {
    const source = ts.createSourceFile(file, readFileSync(join(SRC, 'node', file), 'utf8'), ts.ScriptTarget.Latest, true);
    const found = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name);
    if (found === undefined) continue;
    return {
      members: new Map(found.members.map((member) => [member.name?.getText(source) ?? '', member.getFullText(source).trim()])),
      extends: (found.heritageClauses ?? []).flatMap((clause) => clause.types.map((type) => type.expression.getText(source))),
    };
  }
  throw new Error(`no file of src/node/ declares the interface ${name}: update this spec to where it went`);
}

describe('ServingSettingsConfig', () => {
  it('declares each of its fields as ChatEndpointsConfig does (type and TSDoc)', () => {
    const settings = interfaceOf('ServingSettingsConfig').members;
    const endpoints = interfaceOf('ChatEndpointsConfig');
    expect(settings.size).toBeGreaterThan(0);
    for (const [field, declared] of settings) {
      if (endpoints.extends.includes('ServingSettingsConfig') && !endpoints.members.has(field)) continue; // inherited: one declaration
      expect({ field, declared }).toEqual({ field, declared: endpoints.members.get(field) });
    }
  });
});
