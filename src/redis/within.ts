const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/**
 * The command's reply within `ms`, else a timeout error. node-redis's own `timeout` option covers only the wait to be
 * written: a command already sent to a Redis that hangs waits for its reply forever.
 *
 * The deadline is checked one turn of the event loop after the timer fires (`setImmediate`): when this process was
 * busy past it (a blocked loop runs the due timers before it reads the sockets), a reply that came meanwhile is read
 * first and taken — a busy process is not a Redis outage (the rate limits' failure policy would apply for nothing).
 */
export const within = <T>(reply: Promise<T>, ms: number): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      setImmediate(() => {
        if (!settled) reject(new Error(`Redis did not answer within ${ms} ms`));
      });
    }, ms).unref();
    reply.then(
      (value) => {
        settled = true;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        settled = true;
        clearTimeout(timer);
        reject(asError(error));
      },
    );
  });
