/**
 * Resolves with `check()`'s value once it is defined, checking on each `tick` (an event source: a file watcher,
 * a notification) and at the latest every 20 ms; rejects after `limitMs` with `what` in the message. The limit is
 * a backstop for a broken test, not a wait: long enough for a restart of a process on a loaded CI machine.
 */
export async function waitFor<T>(what: string, check: () => T | undefined, limitMs = 30_000): Promise<T> {
  const started = Date.now();
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() - started > limitMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
