const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** A body-parser limit (`1048576`, `'1mb'`, `'100kb'`) in bytes, as the `bytes` package reads it; `undefined` if unreadable. */
export function toBytes(limit: number | string): number | undefined {
  if (typeof limit === 'number') return limit;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(limit);
  return match === null ? undefined : Math.floor(Number(match[1]) * (UNITS[(match[2] ?? 'b').toLowerCase()] ?? 1));
}
