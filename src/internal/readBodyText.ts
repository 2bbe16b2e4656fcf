/**
 * Reads at most `maxBytes` of a body as UTF-8 text, then destroys the rest, so an error page of any size costs a
 * bounded amount of memory and the connection is released either way.
 */
export async function readBodyText(
  body: AsyncIterable<Uint8Array> & { destroy?: () => void },
  maxBytes = 64 * 1024,
): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      parts.push(bytes.subarray(0, Math.max(0, maxBytes - size)));
      size += bytes.byteLength;
      if (size >= maxBytes) break; // leaving the loop destroys the stream
    }
  } catch {
    // a body that breaks while we read an error page: keep what arrived, the status says enough
  }
  body.destroy?.();
  return Buffer.concat(parts).toString('utf8');
}
