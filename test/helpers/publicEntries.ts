/**
 * The package's entry points and the names each exports, read as a user's compiler sees them (the TypeScript
 * checker: values and types) and as a user's runtime loads them (`Object.keys` of the module).
 * Used by test/architecture/publicSurface.spec.ts and scripts/exportCounts.ts.
 */
import { join } from 'node:path';
import ts from 'typescript';

const ROOT = join(__dirname, '..', '..');

/** Each entry point's specifier and source file, in the order of package.json's exports map. */
export const PUBLIC_ENTRIES: ReadonlyArray<readonly [specifier: string, file: string]> = [
  ['chatflux', 'src/index.ts'],
  ['chatflux/operators', 'src/operators/index.ts'],
  ['chatflux/node', 'src/node/index.ts'],
  ['chatflux/express', 'src/express/index.ts'],
  ['chatflux/nestjs', 'src/nestjs/index.ts'],
  ['chatflux/web', 'src/web/index.ts'],
  ['chatflux/redis', 'src/redis/index.ts'],
  ['chatflux/testing', 'src/testing/index.ts'],
];

/** Every name (value or type) each entry point exports, by specifier, sorted. */
export function exportedNames(): Map<string, string[]> {
  const host = { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (diagnostic: ts.Diagnostic) => { throw new Error(ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')); } };
  const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, 'tsconfig.json'), {}, host);
  if (config === undefined) throw new Error('tsconfig.json could not be read');
  const program = ts.createProgram(PUBLIC_ENTRIES.map(([, file]) => join(ROOT, file)), config.options);
  const checker = program.getTypeChecker();
  const names = new Map<string, string[]>();
  for (const [specifier, file] of PUBLIC_ENTRIES) {
    const source = program.getSourceFile(join(ROOT, file));
    const symbol = source === undefined ? undefined : checker.getSymbolAtLocation(source);
    if (symbol === undefined) throw new Error(`${file}: no module symbol`);
    names.set(specifier, checker.getExportsOfModule(symbol).map((exported) => exported.name).sort());
  }
  return names;
}

/** The runtime exports of an entry point's module, as loaded: its `Object.keys`, sorted. */
export const runtimeNames = (loaded: object): string[] => Object.keys(loaded).filter((key) => key !== 'default' && key !== '__esModule').sort();

/** The source file of an entry point, absolute. */
export const entryFile = (file: string): string => join(ROOT, file);
