/**
 * FNV-1a (32 bit) hash of a string's UTF-16 code units: a fast, stable, non-cryptographic fingerprint.
 *
 * Used to derive deterministic seeds (the upstream emulator hashes the request with its seed).
 *
 * @param text - The string to hash.
 * @param basis - The starting value; chain hashes by passing a previous result.
 * @returns An unsigned 32-bit integer.
 */
export function hashString(text: string, basis = 0x811c9dc5): number {
  let hash = basis >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}
