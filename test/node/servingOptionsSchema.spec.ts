/**
 * One options schema: every serving option is declared once, in `ServingOptionsSchema` (src/serve/), with its default,
 * range and description; the adapters' configs are made of its input type (`ServingSettingsConfig`) and never declare
 * one of its fields again (the transports narrow `clientKey` to their own request, nothing else); the defaults and the
 * misuse errors are read from it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { ConfigError } from '../../src/core/errors';
import { describeOptions, OPTION_DOCS } from '../../src/core/optionDocs';
import { resolveServingSettings } from '../../src/serve/resolveServingSettings';
import { SERVING_DEFAULTS } from '../../src/serve/SERVING_DEFAULTS';
import { ServingOptionsSchema } from '../../src/serve/ServingOptionsSchema';

const SRC = join(__dirname, '..', '..', 'src');
const FIELDS = Object.keys(ServingOptionsSchema.shape);

/** The interface `name` declared in a file of src/serve/, node/, web/, express/ or nestjs/: its members by name and what it extends. */
function interfaceOf(name: string): { members: string[]; extends: string[] } {
  const folders = ['serve', 'node', 'web', 'express', 'nestjs'];
  const files = folders.flatMap((folder) => readdirSync(join(SRC, folder)).filter((f) => f.endsWith('.ts')).map((f) => join(SRC, folder, f)));
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const found = source.statements.find((s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === name);
    if (found === undefined) continue;
    return {
      members: found.members.map((member) => member.name?.getText(source) ?? ''),
      extends: (found.heritageClauses ?? []).flatMap((clause) => clause.types.map((type) => type.getText(source))),
    };
  }
  throw new Error(`no file of src/{${folders.join(',')}}/ declares the interface ${name}: update this spec to where it went`);
}

describe('ServingOptionsSchema', () => {
  it.each([
    ['ServingCoreConfig', 'ServingSettingsConfig'],
    ['ChatEndpointsConfig', 'ServingCoreConfig<IncomingMessage>'],
    ['WebChatHandlersConfig', 'ServingCoreConfig<Request>'],
    ['ChatRouterConfig', "Omit<ChatEndpointsConfig, 'client' | 'shutdown'>"],
    ['ChatfluxModuleConfig', "Omit<ChatEndpointsConfig, 'client' | 'shutdown'>"],
  ])('%s is made of %s and declares none of the schema\'s fields again (clientKey narrowed aside)', (name, parent) => {
    const config = interfaceOf(name);
    expect(config.extends).toEqual([parent]);
    expect(config.members.filter((member) => FIELDS.includes(member) && member !== 'clientKey')).toEqual([]);
  });

  it('is the type ServingSettingsConfig is', () => {
    const text = readFileSync(join(SRC, 'serve', 'ServingSettingsConfig.ts'), 'utf8');
    expect(text).toMatch(/export type ServingSettingsConfig = z\.input<typeof ServingOptionsSchema>;/);
  });

  it('documents every field: a description, and a default or a word for its absence', () => {
    for (const [name, field] of Object.entries(ServingOptionsSchema.shape)) {
      expect({ name, doc: OPTION_DOCS.get(field)?.description }).toEqual({ name, doc: expect.stringMatching(/\S/) });
    }
    const rows = describeOptions(ServingOptionsSchema);
    expect(rows.map((row) => row.name)).toEqual(FIELDS);
    expect(rows.filter((row) => row.default === '—')).toEqual([]);
    expect(rows.find((row) => row.name === 'bodyLimit')).toMatchObject({ type: 'number | string', default: "'1mb'" });
  });

  it('gives the defaults resolveServingSettings applies', () => {
    expect(SERVING_DEFAULTS).toMatchObject({
      bodyLimit: '1mb',
      bodyTimeoutMs: 30_000,
      maxConcurrentPerClient: 32,
      queryLimit: 8192,
      writeStallTimeoutMs: 30_000,
      tokenTtlMs: 60_000,
      heartbeatMs: 15_000,
      maxLogFieldChars: 1024,
      allowSeveralChoices: false,
    });
    const settings = resolveServingSettings({ apiKeys: ['k'] });
    expect(settings).toMatchObject({
      bodyLimit: SERVING_DEFAULTS.bodyLimit,
      bodyTimeoutMs: SERVING_DEFAULTS.bodyTimeoutMs,
      heartbeatMs: SERVING_DEFAULTS.heartbeatMs,
      queryLimit: SERVING_DEFAULTS.queryLimit,
      stallTimeoutMs: SERVING_DEFAULTS.writeStallTimeoutMs,
      maxLogFieldChars: SERVING_DEFAULTS.maxLogFieldChars,
    });
    expect(settings.tokens?.ttlMs).toBe(SERVING_DEFAULTS.tokenTtlMs);
  });

  it.each([
    [{ bodyTimeoutMs: -1 }, 'bodyTimeoutMs must be a number of ms ≥ 0 (0 or Infinity: none), got -1; omit it for the default.'],
    [{ heartbeatMs: 'soon' }, "heartbeatMs must be a number of ms ≥ 0 (0 or Infinity: none), got 'soon'; omit it for the default."],
    [{ queryLimit: -5 }, 'queryLimit must be a number of characters ≥ 0, got -5; omit it for the default.'],
    [{ maxLogFieldChars: 1.5 }, 'maxLogFieldChars must be an integer ≥ 0, got 1.5; omit it for the default.'],
    [{ bodyLimit: true }, "bodyLimit must be a number of bytes ≥ 0, or a size such as '512kb', got true; omit it for the default."],
    [{ allowSeveralChoices: 'yes' }, "allowSeveralChoices must be of type boolean, got 'yes'; omit it for the default."],
    [{ apiKeys: 'one-key' }, "apiKeys must be of type string[], got 'one-key'; omit it for the default."],
    [{ log: 'stdout' }, "log must be a function, got 'stdout'; omit it for the default."],
  ])('refuses %j with a ConfigError naming the field and what it must be', (config, message) => {
    expect(() => resolveServingSettings(config as never)).toThrow(ConfigError);
    expect(() => resolveServingSettings(config as never)).toThrow(message);
  });

  it('accepts Infinity as a duration (none) and leaves fields it does not know alone', () => {
    expect(resolveServingSettings({ heartbeatMs: Infinity, ...{ someFrameworkOption: 1 } }).heartbeatMs).toBe(0);
  });
});
