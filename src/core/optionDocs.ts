import { z } from 'zod';
import { ConfigError } from './errors.js';

/**
 * What is said about one option, written once beside its zod schema (`option(schema, doc)`): the option tables of
 * the docs, the gateway's banner and `--help`, and the misuse errors read it from there.
 */
export interface OptionDoc {
  /** One line: what the option does. */
  description: string;
  /**
   * Its allowed values in words, as a misuse error completes "`name` must be …" (`a number of ms ≥ 0 (0 or
   * Infinity: none)`) and the tables print it.
   */
  range?: string;
  /** Its type as the tables print it, when the schema cannot say it (a function's signature, an object's name). */
  type?: string;
  /** Its default in words, when it has no default value (`a random secret per process`). */
  defaultText?: string;
  /** A secret: never printed (`--check-config` says `(set)`), and in a config file only a reference to a variable. */
  secret?: boolean;
}

/** One row of an option table, rendered from a schema by {@link describeOptions}. */
export interface OptionRow {
  /** The option's name (a dotted path for a nested section: `upstream.timeouts.idle`). */
  name: string;
  /** Its type (`number`, `string[]`, `'a' | 'b'`, a function's signature). */
  type: string;
  /** Its default (`30000`, `'1mb'`), in words when it has no value, `—` when none. */
  default: string;
  /** Whether `default` is a value (`30000`), not words (`a random secret per process`). */
  defaultIsValue: boolean;
  /** Its allowed values in words, `—` when any value of its type is. */
  range: string;
  /** One line: what it does. */
  description: string;
  /** A secret: never printed, and in a config file only a reference to an environment variable. */
  secret: boolean;
  /** Its schema as declared (with its default): `schema.parse(undefined)` is its default. */
  schema: z.ZodType;
  /** Its schema without its `.default()` / `.optional()` wrappers: what a value is checked against (`z.ZodNumber`, …). */
  inner: z.ZodType;
}

/** The registry of the option docs: each documented option's schema → its {@link OptionDoc}. */
export const OPTION_DOCS = z.registry<OptionDoc>();

/**
 * Documents an option: registers `doc` for `schema` in the option docs' registry and returns the schema, for a shape:
 * `{ heartbeatMs: option(z.number().default(15000), { description: 'SSE heartbeat interval' }) }`.
 *
 * @param schema - The option's schema, with its `.default()` or `.optional()`.
 * @param doc - What the tables and the errors say about it.
 * @returns The same schema.
 */
export function option<S extends z.ZodType>(schema: S, doc: OptionDoc): S {
  OPTION_DOCS.add(schema, doc);
  return schema;
}

/** A value as the tables and the errors print it: numbers and booleans bare, strings quoted, arrays in brackets. */
function showValue(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  if (Array.isArray(value)) return `[${value.map(showValue).join(', ')}]`;
  if (typeof value === 'function') return 'a function';
  if (value !== null && typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** The type of a schema as a table prints it. */
function typeOf(schema: z.ZodType): string {
  const doc = OPTION_DOCS.get(schema);
  if (doc?.type !== undefined) return doc.type;
  const def = schema._zod.def as { type: string; innerType?: z.ZodType; element?: z.ZodType; options?: z.ZodType[]; entries?: Record<string, unknown>; values?: unknown[] };
  switch (def.type) {
    case 'default':
    case 'optional':
    case 'readonly':
    case 'nullable':
    case 'prefault':
      return typeOf(def.innerType!);
    case 'array':
      return `${typeOf(def.element!)}[]`;
    case 'union':
      return def.options!.map(typeOf).join(' | ');
    case 'enum':
      return Object.values(def.entries!).map(showValue).join(' | ');
    case 'literal':
      return def.values!.map(showValue).join(' | ');
    case 'custom':
      return 'object';
    default:
      return def.type;
  }
}

/**
 * The rows of an option table: one per documented field of `schema` (an object schema), in its order; a field that
 * is itself an object of documented fields gives its fields' rows (`prefix.field`).
 *
 * @param schema - An object schema whose fields are documented with {@link option}.
 * @param prefix - A prefix for the names (a section's: `serve.`).
 * @returns The rows.
 */
export function describeOptions(schema: z.ZodObject, prefix = ''): OptionRow[] {
  return Object.entries(schema.shape).flatMap(([name, field]: [string, z.ZodType]) => {
    const doc = OPTION_DOCS.get(field);
    const inner = unwrap(field);
    if (doc === undefined && inner instanceof z.ZodObject) return describeOptions(inner, `${prefix}${name}.`);
    if (doc === undefined) return [];
    const fallback = field.safeParse(undefined);
    const value = fallback.success ? fallback.data : undefined;
    return [
      {
        name: `${prefix}${name}`,
        type: typeOf(field),
        default: value !== undefined ? showValue(value) : (doc.defaultText ?? '—'),
        defaultIsValue: value !== undefined,
        range: doc.range ?? '—',
        description: doc.description,
        secret: doc.secret === true,
        schema: field,
        inner,
      },
    ];
  });
}

/** A schema without its `.default()`, `.optional()`, `.readonly()` and `.prefault()` wrappers. */
function unwrap(schema: z.ZodType): z.ZodType {
  const def = schema._zod.def as { type: string; innerType?: z.ZodType };
  return ['default', 'optional', 'readonly', 'prefault'].includes(def.type) && def.innerType !== undefined ? unwrap(def.innerType) : schema;
}

/**
 * Checks each documented field of `config` against its schema, in the schema's order: the first wrong one is a
 * `ConfigError` that names it, says what it must be (its doc's `range`) and what it got: "`bodyTimeoutMs` must be a
 * number of ms ≥ 0 (0 or Infinity: none), got -1; omit it for the default." Fields the schema does not know are left
 * alone (an adapter's own, a framework's).
 *
 * @param schema - The object schema of the options.
 * @param config - The options as given.
 * @param skip - Fields checked elsewhere, or not checked in this configuration.
 * @throws ConfigError naming the first wrong field.
 */
export function checkOptions(schema: z.ZodObject, config: object, skip: readonly string[] = []): void {
  for (const [name, field] of Object.entries(schema.shape) as Array<[string, z.ZodType]>) {
    if (skip.includes(name)) continue;
    const value = (config as Record<string, unknown>)[name];
    if (value === undefined || field.safeParse(value).success) continue;
    const range = OPTION_DOCS.get(field)?.range ?? `of type ${typeOf(field)}`;
    throw new ConfigError(`${name} must be ${range}, got ${showValue(value)}; omit it for the default.`);
  }
}
