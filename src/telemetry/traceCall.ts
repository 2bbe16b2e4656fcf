import { defer, type Observable } from 'rxjs';
import type { CompletionCall } from './CompletionCall.js';
import type { CompletionDescription } from './CompletionDescription.js';
import type { CompletionTelemetry } from './CompletionTelemetry.js';
import { watchNotifications } from './watchNotifications.js';

/**
 * Runs one completion inside its span: on each subscription, starts a {@link CompletionCall} (when telemetry records
 * anything), hands it to `run` (which threads it to each attempt with `watchAttempt`), and ends it with the outcome —
 * completed, failed with its error, or `aborted` when the subscriber leaves before the end.
 *
 * ```text
 * run(call):  --a--b--|           --a--#            --a--b--
 * traceCall:  --a--b--|           --a--#            --a--b-!   (! unsubscribed)
 * span:       ended, ok           error.type=code   error.type=aborted
 * ```
 *
 * @param telemetry - The client's telemetry; `undefined`: `run(undefined)` as it is.
 * @param description - The request, for the span's name and attributes.
 * @param run - Builds the completion's observable for this call.
 * @returns The completion, traced.
 */
export function traceCall<T>(
  telemetry: CompletionTelemetry | undefined,
  description: () => CompletionDescription,
  run: (call: CompletionCall | undefined) => Observable<T>,
): Observable<T> {
  if (telemetry === undefined) return run(undefined);
  return defer(() => {
    const call = telemetry.start(description());
    if (call === undefined) return run(undefined);
    // One hop per value (watchNotifications: `tap`'s handlers, through a subscriber whose own next() passes the value
    // on); its `unsubscribe` runs only when the subscriber leaves before the end.
    return run(call).pipe(
      watchNotifications<T>({
        error: (error: unknown) => call.end(error ?? new Error('failed')),
        complete: () => call.end(undefined),
        unsubscribe: () => call.end('aborted'),
      }),
    );
  });
}
