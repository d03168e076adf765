/**
 * Runs the tasks given to it one after another: one account's transactions never race each other for a
 * nonce. A failed task does not stop the ones queued after it.
 */
export function serialQueue(): <T>(task: () => Promise<T>) => Promise<T> {
  let last: Promise<unknown> = Promise.resolve();
  return (task) => {
    const next = last.then(task, task);
    last = next.catch(() => undefined);
    return next;
  };
}
