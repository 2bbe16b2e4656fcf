import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { z } from 'zod';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import { ConfigError } from 'chatflux';
import { GATEWAY_KEYS } from './GATEWAY_KEYS.js';
import { GatewayFileSchema } from './GatewayFileSchema.js';

/** The gateway's config file, read and checked by {@link readGatewayFile}. */
export interface GatewayFile {
  /** The path it was read from. */
  readonly path: string;
  /** Its content, the references to environment variables replaced by their values, checked by `GatewayFileSchema`. */
  readonly doc: Record<string, unknown>;
  /** A key as errors name it, with the file and the line of its value: `upstream.baseUrl (gateway.yaml:4)`. */
  where(path: ReadonlyArray<PropertyKey>): string;
}

/** `${NAME}`: a reference to an environment variable, the whole value. */
const REFERENCE = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/;

/**
 * Reads the gateway's YAML config file: parses it (YAML errors name the line), replaces each reference to an
 * environment variable — a value that is exactly `${NAME}` — by that variable's value (unset: an error naming the key,
 * the line and the variable), refuses a secret written in the file (`upstream.apiKey`, `serve.apiKeys`,
 * `serve.tokenSecret`, `telemetry.metricsToken` take only `${NAME}`), and checks the rest against `GatewayFileSchema`:
 * an unknown key, a wrong type or a value out of range is a `ConfigError` naming the key and its line.
 *
 * @param path - The file (`--config FILE`, `CHATFLUX_CONFIG`).
 * @param env - The environment the references are read from.
 * @returns The file's checked content.
 * @throws ConfigError naming the file, the line and the key to fix.
 */
export function readGatewayFile(path: string, env: Record<string, string | undefined>): GatewayFile {
  const name = basename(path);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read the config file ${JSON.stringify(path)}: ${(error as Error).message}`, { cause: error });
  }
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false });
  const [syntax] = document.errors;
  if (syntax !== undefined) {
    throw new ConfigError(`${name}:${lines.linePos(syntax.pos[0]).line}: not valid YAML: ${syntax.message.split('\n')[0]}`);
  }
  /** The line of a key (of its item, in a list), else of the nearest enclosing one. */
  const lineOf = (keys: ReadonlyArray<PropertyKey>): number | undefined => {
    for (let n = keys.length; n > 0; n -= 1) {
      const parent = n === 1 ? document.contents : document.getIn(keys.slice(0, n - 1) as unknown[], true);
      const key = keys[n - 1];
      const node = isMap(parent)
        ? parent.items.find((pair) => isScalar(pair.key) && pair.key.value === key)?.key
        : isSeq(parent)
          ? parent.items[Number(key)]
          : undefined;
      const range = (node as Node | undefined)?.range;
      if (range) return lines.linePos(range[0]).line;
    }
    return undefined;
  };
  const where = (keys: ReadonlyArray<PropertyKey>): string => {
    const line = lineOf(keys);
    return `${keys.map(String).join('.') || '(the file)'} (${name}${line === undefined ? '' : `:${line}`})`;
  };
  const root: unknown = document.toJS();
  if (root === null || root === undefined) throw new ConfigError(`${name} is empty: write its sections (see gateway.example.yaml), or leave --config out.`);
  if (!isMap(document.contents)) throw new ConfigError(`${name}:1: the config file must be a map of sections (http, upstream, serve, …), got ${JSON.stringify(root)}.`);
  const doc = resolveReferences(root, [], where, env) as Record<string, unknown>;
  const parsed = GatewayFileSchema.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const key = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      // The keys the section takes: the next segment of every documented key under it.
      const under = key === '' ? '' : `${key}.`;
      const known = [...new Set([...GATEWAY_KEYS.keys()].filter((k) => k.startsWith(under)).map((k) => k.slice(under.length).split('.')[0]!))];
      const unknown = issue.keys.map((k) => `${under}${k}`);
      throw new ConfigError(`${where([...issue.path, issue.keys[0]!])}: unknown key ${unknown.join(', ')}; ${key === '' ? 'the sections are' : `${key} takes`} ${known.join(', ')}.`);
    }
    const row = GATEWAY_KEYS.get(key);
    const value = issue.path.reduce<unknown>((at, k) => (at as Record<PropertyKey, unknown> | undefined)?.[k], doc);
    const got = row?.secret === true ? '' : `, got ${JSON.stringify(value)}`;
    const message = row === undefined || row.range === '—' ? issue.message : `must be ${row.range}${got}`;
    throw new ConfigError(`${where(issue.path)}: ${message}.`);
  }
  return { path, doc, where };
}

/** Replaces each `${NAME}` by the variable's value; refuses a secret written literally. */
function resolveReferences(value: unknown, path: PropertyKey[], where: (path: ReadonlyArray<PropertyKey>) => string, env: Record<string, string | undefined>): unknown {
  const key = path.map(String).join('.');
  const row = path[0] === 'routes' ? undefined : GATEWAY_KEYS.get(path.filter((k) => typeof k === 'string').join('.'));
  const secret = row?.secret === true;
  if (Array.isArray(value)) return value.map((item, i) => resolveReferences(item, [...path, i], where, env));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, item]) => [k, resolveReferences(item, [...path, k], where, env)]));
  }
  if (typeof value !== 'string') {
    if (secret) throw new ConfigError(`${where(path)}: a secret is written in the config file as a reference to an environment variable, \${NAME}, not as a value.`);
    return value;
  }
  const variable = REFERENCE.exec(value.trim())?.[1];
  if (variable === undefined) {
    if (secret) {
      throw new ConfigError(
        `${where(path)} holds a secret written in the file: write a reference to an environment variable instead (${key}: \${SOME_VARIABLE}) and set that variable.`,
      );
    }
    if (value.includes('${')) throw new ConfigError(`${where(path)}: a reference to an environment variable is the whole value, \${NAME}; got ${JSON.stringify(value)}.`);
    return value;
  }
  const resolved = env[variable]?.trim();
  if (resolved === undefined || resolved === '') throw new ConfigError(`${where(path)} refers to \${${variable}}, which is not set.`);
  // A list written as one reference (`apiKeys: ${GATEWAY_KEYS}`): the variable holds it comma-separated.
  if (row?.inner instanceof z.ZodArray && typeof path[path.length - 1] === 'string') {
    return resolved.split(',').map((item) => item.trim()).filter((item) => item !== '');
  }
  return resolved;
}

