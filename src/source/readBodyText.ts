/**
 * Reads at most `maxBytes` of a body as UTF-8 text within `timeoutMs`, then destroys the rest, so an error page of
 * any size or pace costs a bounded amount of memory and time, and the connection is released either way. A body
 * that breaks or stalls yields what arrived until then.
 */
export async function readBodyText(
  body: AsyncIterable<Uint8Array> & { destroy?: () => void },
  maxBytes = 64 * 1024,
  timeoutMs = 5000,
): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  // destroying the body ends a pending read (with a premature-close error, caught below)
  const timer = setTimeout(() => body.destroy?.(), timeoutMs);
  try {
    for await (const chunk of body) {
      const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      parts.push(bytes.subarray(0, Math.max(0, maxBytes - size)));
      size += bytes.byteLength;
      if (size >= maxBytes) break; // leaving the loop destroys the stream
    }
  } catch {
    // a body that breaks (or stalls past the deadline) while we read an error page: keep what arrived
  } finally {
    clearTimeout(timer);
  }
  body.destroy?.();
  return Buffer.concat(parts).toString('utf8');
}
