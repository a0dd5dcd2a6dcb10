/** Per caller signal: the attempts in flight to end when it aborts. */
const attempts = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Runs `callback` when `signal` aborts, until `offAbort`. One listener per signal, however many attempts use it
 * (an agent's session signal given to every call): watching and unwatching an attempt is a `Set` insertion and
 * deletion instead of `addEventListener` and `removeEventListener`, and nothing piles up on a long-lived signal.
 * The one listener goes with the signal.
 */
export function onAbort(signal: AbortSignal, callback: () => void): void {
  let set = attempts.get(signal);
  if (!set) {
    const callbacks = new Set<() => void>();
    set = callbacks;
    attempts.set(signal, callbacks);
    signal.addEventListener(
      'abort',
      () => {
        const due = [...callbacks];
        callbacks.clear();
        for (const run of due) run();
      },
      { once: true },
    );
  }
  set.add(callback);
}

export function offAbort(signal: AbortSignal, callback: () => void): void {
  attempts.get(signal)?.delete(callback);
}
