import type { IncomingHttpHeaders } from 'node:http';

/** Limits of the emulator's request log (`EmulatorConfig.requestLog`). */
export interface EmulatorRequestLogConfig {
  /** The most requests kept (default 1000). */
  maxRequests?: number;
  /** The most bytes of bodies and headers kept, about (default 32 MiB). */
  maxBytes?: number;
}

/** A bounded list of request records; see {@link createRequestLog}. */
export interface RequestLog<R> {
  /** The records kept, oldest first (a plain array: tests may read and splice it). */
  readonly records: R[];
  /** Appends a record (its headers counted now), dropping the oldest beyond the limits. */
  add(record: R & { headers: IncomingHttpHeaders }): void;
  /** Counts `bytes` more for a record already added (its body, once read), dropping the oldest beyond the limits. */
  sized(record: R, bytes: number): void;
}

const headerBytes = (headers: IncomingHttpHeaders): number => {
  let bytes = 0;
  for (const [name, value] of Object.entries(headers)) bytes += name.length + String(value ?? '').length + 4;
  return bytes;
};

/**
 * The emulator's request log as a ring: the latest records within a count and a byte budget, oldest dropped first.
 * `false` (or `maxRequests: 0`) keeps none. Sizes are kept beside the records (a `WeakMap`), so a record dropped by
 * the log, or spliced out by a test, costs nothing; the budget is re-counted over the records still there.
 *
 * @param config - The limits, or `false` for none.
 */
export function createRequestLog<R extends object>(config: EmulatorRequestLogConfig | false = {}): RequestLog<R> {
  const maxRequests = config === false ? 0 : (config.maxRequests ?? 1000);
  const maxBytes = config === false ? 0 : (config.maxBytes ?? 32 * 1024 * 1024);
  const records: R[] = [];
  const sizes = new WeakMap<R, number>();

  const trim = (): void => {
    if (records.length > maxRequests) records.splice(0, records.length - maxRequests);
    let total = 0;
    for (let i = records.length - 1; i >= 0; i--) {
      total += sizes.get(records[i] as R) ?? 0;
      if (total > maxBytes && i < records.length - 1) {
        records.splice(0, i + 1); // the newest record stays, whatever its size
        return;
      }
    }
  };

  return {
    records,
    add(record) {
      if (maxRequests <= 0) return;
      sizes.set(record, headerBytes(record.headers));
      records.push(record);
      trim();
    },
    sized(record, bytes) {
      const before = sizes.get(record);
      if (before === undefined) return;
      sizes.set(record, before + bytes);
      trim();
    },
  };
}
