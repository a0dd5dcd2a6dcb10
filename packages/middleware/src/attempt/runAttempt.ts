import { type Clock, TIMER_STOPPED } from '../Clock.js';
import type { AttemptContext } from '../call/CallOptions.js';
import type { Outcome } from './Outcome.js';

/** How long an attempt may take, and the reason its signal aborts with when that time has passed. */
export interface TimeLimit {
  readonly ms: number;
  readonly reason: () => unknown;
}

/**
 * Runs one attempt and returns its outcome. The function's signal aborts when the call's signal aborts or the
 * time limit passes, and the attempt ends at that moment even if the function ignores its signal.
 */
export async function runAttempt<T>(
  fn: (context: AttemptContext) => T | Promise<T>,
  attempt: number,
  traceContext: Readonly<Record<string, string>>,
  callSignal: AbortSignal | undefined,
  limit: TimeLimit | undefined,
  clock: Clock,
): Promise<Outcome<T>> {
  if (callSignal?.aborted) return failed(callSignal.reason);

  // Fast path: nothing can interrupt the attempt, so there is nothing to race. Its signal never aborts; it is
  // made only when read, and fresh each time (a shared one would collect the listeners callers never remove).
  if (!callSignal && limit === undefined) {
    try {
      return ok(await fn(new QuietContext(attempt, traceContext)));
    } catch (error) {
      return failed(error);
    }
  }

  // The attempt's own signal (one per attempt, so that listeners the function leaves on it, as the MCP SDK
  // does, go with it), aborted when the call's signal is or when the time limit passes.
  const controller = new AbortController();
  let interrupt: (reason: unknown) => void = () => {};
  const interrupted = new Promise<Outcome<T>>((resolve) => {
    interrupt = (reason) => {
      controller.abort(reason);
      resolve(failed(reason));
    };
  });
  const forward = () => interrupt(callSignal?.reason);
  callSignal?.addEventListener('abort', forward, { once: true });
  let stopTimer: AbortController | undefined;
  if (limit !== undefined) {
    stopTimer = new AbortController();
    clock.sleep(Math.max(0, limit.ms), stopTimer.signal).then(
      () => interrupt(limit.reason()),
      () => {},
    );
  }
  const run = (async (): Promise<Outcome<T>> => {
    try {
      return ok(await fn({ signal: controller.signal, attempt, traceContext }));
    } catch (error) {
      return failed(error);
    }
  })();
  try {
    return await Promise.race([run, interrupted]);
  } finally {
    stopTimer?.abort(TIMER_STOPPED);
    callSignal?.removeEventListener('abort', forward);
  }
}

/** The context of an attempt nothing can interrupt: its signal never aborts, and is made only if read. */
class QuietContext implements AttemptContext {
  private quietSignal: AbortSignal | undefined;
  constructor(
    readonly attempt: number,
    readonly traceContext: Readonly<Record<string, string>>,
  ) {}
  get signal(): AbortSignal {
    this.quietSignal ??= new AbortController().signal;
    return this.quietSignal;
  }
}

const ok = <T>(value: T): Outcome<T> => ({ ok: true, value });
const failed = <T>(error: unknown): Outcome<T> => ({ ok: false, error });
