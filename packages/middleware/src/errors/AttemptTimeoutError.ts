/** The reason an attempt's signal aborts with when its time limit (or the call's deadline) passes. */
export class AttemptTimeoutError extends Error {
  override readonly name = 'AttemptTimeoutError';
  constructor(
    readonly timeoutMs: number,
    what: 'attempt' | 'call' = 'attempt',
  ) {
    super(
      what === 'call' ? `call deadline of ${timeoutMs} ms passed` : `attempt timed out after ${timeoutMs} ms`,
    );
  }
}
