import { createRequire } from 'node:module';
import { join } from 'node:path';

/** The `@opentelemetry/api` module's shape, as chatflux uses it (a type only: nothing is imported at run time). */
export type OtelApi = typeof import('@opentelemetry/api');

let loaded: OtelApi | null | undefined;

/**
 * The one place chatflux loads `@opentelemetry/api`, an optional peer dependency: the module when the application
 * has it installed, else `undefined` (and telemetry stays off, at no cost). Loaded once, on first use, synchronously
 * (beside this file in CommonJS; from the working directory's `node_modules` in an ES module build). The API keeps its
 * providers in a process-wide registry, so whichever copy is found sees the provider the application registered.
 *
 * @returns The API, or `undefined` when it is not installed.
 */
export function loadOtelApi(): OtelApi | undefined {
  if (loaded === undefined) {
    try {
      const base = typeof __filename === 'string' ? __filename : join(process.cwd(), 'index.js');
      loaded = createRequire(base)('@opentelemetry/api') as OtelApi;
    } catch {
      loaded = null;
    }
  }
  return loaded ?? undefined;
}
