import type { AttemptContext } from './AttemptContext.js';
import type { DeadlineWatch, Watched } from './DeadlineWatch.js';
import type { Outcome } from './Outcome.js';
import { offAbort, onAbort } from './onAbort.js';

/** When an attempt's time is up (epoch milliseconds), and the reason its signal aborts with then. */
export interface TimeLimit {
  readonly at: number;
  readonly reason: () => unknown;
}

/**
 * Runs one attempt and returns its outcome; never throws. The attempt ends when the function settles, when the
 * call's signal aborts or when its time limit passes, even if the function ignores its signal. The function's
 * signal (its own per attempt, so that listeners a function leaves on it, as the MCP SDK does, go with it) is
 * made only when the function reads it, and aborts with the reason the attempt ended with: a function that
 * never reads it costs no `AbortController`, and the time limit costs no timer of its own (`DeadlineWatch`).
 */
export function runAttempt<T>(
  fn: (context: AttemptContext) => T | Promise<T>,
  attempt: number,
  traceContext: Readonly<Record<string, string>>,
  callSignal: AbortSignal | undefined,
  limit: TimeLimit | undefined,
  watch: DeadlineWatch,
): Promise<Outcome<T>> {
  if (callSignal?.aborted) return Promise.resolve(failed(callSignal.reason));
  const context = new LazyContext(attempt, traceContext);
  if (!callSignal && limit === undefined) return settleOf(fn, context);
  return new Promise<Outcome<T>>((resolve) => {
    let done = false;
    let watched: Watched | undefined;
    const finish = (outcome: Outcome<T>) => {
      if (done) return;
      done = true;
      if (watched) watch.unwatch(watched);
      if (callSignal) offAbort(callSignal, abort);
      resolve(outcome);
    };
    const interrupt = (reason: unknown) => {
      if (done) return;
      context.abort(reason);
      finish(failed(reason));
    };
    const abort = () => interrupt(callSignal?.reason);
    if (limit !== undefined) {
      watched = { at: limit.at, expire: () => interrupt(limit.reason()) };
      watch.watch(watched);
    }
    if (callSignal) onAbort(callSignal, abort);
    settleOf(fn, context).then(finish);
  });
}

/** The function's result as an outcome (a synchronous throw included). */
function settleOf<T>(fn: (context: AttemptContext) => T | Promise<T>, context: AttemptContext) {
  try {
    const result = fn(context);
    if (isThenable(result)) return Promise.resolve(result).then(ok<T>, failed<T>);
    return Promise.resolve(ok(result));
  } catch (error) {
    return Promise.resolve(failed<T>(error));
  }
}

const isThenable = <T>(value: T | Promise<T>): value is Promise<T> =>
  typeof (value as { then?: unknown } | null | undefined)?.then === 'function';

/** An attempt's context whose signal is made only when read (or already aborted when read after the end). */
class LazyContext implements AttemptContext {
  private controller: AbortController | undefined;
  private abortedWith: { reason: unknown } | undefined;
  constructor(
    readonly attempt: number,
    readonly traceContext: Readonly<Record<string, string>>,
  ) {}
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.abortedWith) this.controller.abort(this.abortedWith.reason);
    }
    return this.controller.signal;
  }
  abort(reason: unknown): void {
    this.abortedWith = { reason };
    this.controller?.abort(reason);
  }
}

const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });
const failed = <T>(error: unknown): Outcome<T> => ({ ok: false, error });
