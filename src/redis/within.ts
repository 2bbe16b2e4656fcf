const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/**
 * The command's reply within `ms`, else a timeout error. node-redis's own `timeout` option covers only the wait to be
 * written: a command already sent to a Redis that hangs waits for its reply forever.
 */
export const within = <T>(reply: Promise<T>, ms: number): Promise<T> =>
  new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms).unref();
    reply.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(asError(error));
      },
    );
  });
