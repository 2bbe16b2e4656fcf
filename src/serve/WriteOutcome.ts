/** How a response ended; the promise of {@link chatflux/node!writeResponse} resolves with it and never rejects. */
export interface WriteOutcome {
  /** `completed`: the source completed; `failed`: it errored (or was aborted); `disconnected`: the client went away. */
  result: 'completed' | 'failed' | 'disconnected';
  /** The HTTP status sent (200 once committed), or `0` when nothing was sent before a disconnect. */
  status: number;
  /** Whether the 200 headers were committed before the end. */
  committed: boolean;
  /** The error of a `failed` outcome. */
  error?: unknown;
  /** Values written. */
  values: number;
  /** Body bytes written. */
  bytes: number;
  /** Milliseconds from the call to the first value, when there was one. */
  firstValueMs?: number;
}
