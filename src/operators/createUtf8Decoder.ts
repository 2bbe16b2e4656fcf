import { StreamProtocolError } from '../core/errors.js';

/** A streaming UTF-8 decoder whose output does not depend on how the bytes were split, errors included. */
export interface Utf8Decoder {
  /** Decodes the next chunk; on invalid UTF-8 returns the text before it and makes {@link Utf8Decoder.check} throw. */
  decode(bytes: Uint8Array): string;
  /** Ends (flushes) the input: `''`, or U+FFFD for an unfinished character in `'replace'` mode (an error in `'error'`). */
  end(): string;
  /** Throws `StreamProtocolError('sse_invalid_utf8')` if the input so far was invalid (`'error'` mode). */
  check(): void;
}

const STREAM = { stream: true } as const;
const EMPTY = new Uint8Array(0);

/**
 * Creates a streaming UTF-8 decoder (BOM kept) on top of `TextDecoder`. In `'error'` mode an invalid sequence — also an
 * unfinished character at the end — is an error, and the text before it is still returned first, so what a caller
 * sees is the same for every split of the input. In `'replace'` mode invalid bytes become U+FFFD (WHATWG).
 *
 * @param mode - `'error'` or `'replace'`.
 * @returns The decoder.
 */
export function createUtf8Decoder(mode: 'error' | 'replace'): Utf8Decoder {
  const decoder = new TextDecoder('utf-8', { fatal: mode === 'error', ignoreBOM: true });
  // The last (up to) 3 bytes seen: on an error they tell which bytes the decoder held of an unfinished character.
  const tail = new Uint8Array(3);
  let tailLength = 0;
  let failure: StreamProtocolError | undefined;

  const fail = (cause: unknown): void => {
    failure = new StreamProtocolError('sse_invalid_utf8', 'the SSE stream is not valid UTF-8', { cause });
  };

  return {
    decode(bytes) {
      if (failure !== undefined) return '';
      let text: string;
      try {
        text = decoder.decode(bytes, STREAM);
      } catch (cause) {
        fail(cause);
        // Error path: redo this chunk by hand to return the valid text before the bad sequence.
        const held = heldBytes(tail, tailLength);
        const all = new Uint8Array(held.length + bytes.length);
        all.set(held);
        all.set(bytes, held.length);
        const bad = firstInvalidIndex(all);
        return new TextDecoder('utf-8', { ignoreBOM: true }).decode(all.subarray(0, bad < 0 ? 0 : bad));
      }
      const n = bytes.length;
      if (n >= 3) {
        tail[0] = bytes[n - 3] as number;
        tail[1] = bytes[n - 2] as number;
        tail[2] = bytes[n - 1] as number;
        tailLength = 3;
      } else {
        for (let i = 0; i < n; i++) {
          if (tailLength === 3) {
            tail[0] = tail[1] as number;
            tail[1] = tail[2] as number;
            tail[2] = bytes[i] as number;
          } else tail[tailLength++] = bytes[i] as number;
        }
      }
      return text;
    },
    end() {
      tailLength = 0;
      if (failure !== undefined) return '';
      try {
        return decoder.decode();
      } catch (cause) {
        fail(cause);
        return '';
      }
    },
    check() {
      if (failure !== undefined) throw failure;
    },
  };
}

/** The bytes of an unfinished character at the end of `tail` (valid so far), which `TextDecoder` still holds. */
function heldBytes(tail: Uint8Array, length: number): Uint8Array {
  for (let i = length - 1; i >= 0; i--) {
    const b = tail[i] as number;
    if ((b & 0xc0) !== 0x80) {
      const size = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
      return length - i < size ? tail.slice(i, length) : EMPTY;
    }
  }
  return EMPTY;
}

/** Where the first ill-formed sequence starts (WHATWG UTF-8 decoder), or -1; an unfinished end is not ill-formed. */
function firstInvalidIndex(bytes: Uint8Array): number {
  const n = bytes.length;
  let i = 0;
  while (i < n) {
    const b = bytes[i] as number;
    if (b < 0x80) {
      i++;
      continue;
    }
    let need: number;
    let lower = 0x80;
    let upper = 0xbf;
    if (b >= 0xc2 && b <= 0xdf) need = 1;
    else if (b >= 0xe0 && b <= 0xef) {
      need = 2;
      if (b === 0xe0) lower = 0xa0;
      if (b === 0xed) upper = 0x9f;
    } else if (b >= 0xf0 && b <= 0xf4) {
      need = 3;
      if (b === 0xf0) lower = 0x90;
      if (b === 0xf4) upper = 0x8f;
    } else return i;
    for (let k = 1; k <= need; k++) {
      if (i + k >= n) return -1;
      const c = bytes[i + k] as number;
      if (c < lower || c > upper) return i;
      lower = 0x80;
      upper = 0xbf;
    }
    i += need + 1;
  }
  return -1;
}
