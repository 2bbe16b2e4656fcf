/**
 * `ServingSettingsConfig` (what `resolveServingSettings` reads) is declared in a file of its own so that the settings
 * do not import the core that uses them (no circle, type imports included). The serving core's options
 * (`ServingCoreConfig`, src/serve/) are made of it, and the transports' (`ChatEndpointsConfig`, `WebChatHandlersConfig`)
 * of those: no copy of a field may come back — a field declared again must be declared as `ServingSettingsConfig`
 * declares it, its type and its documentation. This reads the declarations with the TypeScript compiler and compares
 * them field by field.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const SRC = join(__dirname, '..', '..', 'src');

/** The interface `name` declared in a file of src/serve/, src/node/ or src/web/, with its members as written (TSDoc included) by name. */
function interfaceOf(name: string): { members: Map<string, string>; extends: string[] } {
  const files = ['serve', 'node', 'web'].flatMap((folder) => readdirSync(join(SRC, folder)).filter((f) => f.endsWith('.ts')).map((f) => join(SRC, folder, f)));
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const found = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name);
    if (found === undefined) continue;
    return {
      members: new Map(found.members.map((member) => [member.name?.getText(source) ?? '', member.getFullText(source).trim()])),
      extends: (found.heritageClauses ?? []).flatMap((clause) => clause.types.map((type) => type.expression.getText(source))),
    };
  }
  throw new Error(`no file of src/serve/, src/node/ or src/web/ declares the interface ${name}: update this spec to where it went`);
}

describe('ServingSettingsConfig', () => {
  it('is what the serving core\'s options are made of; ChatEndpointsConfig and WebChatHandlersConfig are made of those', () => {
    const settings = interfaceOf('ServingSettingsConfig').members;
    expect(settings.size).toBeGreaterThan(0);
    const core = interfaceOf('ServingCoreConfig');
    expect(core.extends).toContain('ServingSettingsConfig');
    for (const [name, parent] of [['ChatEndpointsConfig', 'ServingCoreConfig'], ['WebChatHandlersConfig', 'ServingCoreConfig']] as const) {
      expect(interfaceOf(name).extends).toContain(parent);
    }
    for (const config of [core, interfaceOf('ChatEndpointsConfig'), interfaceOf('WebChatHandlersConfig')]) {
      for (const [field, declared] of settings) {
        if (!config.members.has(field)) continue; // inherited: one declaration
        expect({ field, declared }).toEqual({ field, declared: config.members.get(field) });
      }
    }
  });
});
