import type { Clock } from '../Clock.js';
import type { AttemptContext } from '../call/CallOptions.js';
import { AttemptTimeoutError } from '../errors/AttemptTimeoutError.js';
import type { Outcome } from './Outcome.js';

/**
 * Runs one attempt and returns its outcome. The function's signal aborts when the call's signal aborts or the
 * attempt's time limit passes, and the attempt ends at that moment even if the function ignores its signal.
 */
export async function runAttempt<T>(
  fn: (context: AttemptContext) => T | Promise<T>,
  attempt: number,
  traceContext: Readonly<Record<string, string>>,
  callSignal: AbortSignal | undefined,
  timeLimitMs: number | undefined,
  clock: Clock,
): Promise<Outcome<T>> {
  if (callSignal?.aborted) return failed(callSignal.reason);

  // Fast path: nothing can interrupt the attempt, so there is nothing to race. Its signal never aborts; it is
  // made only when read, and fresh each time (a shared one would collect the listeners callers never remove).
  if (!callSignal && timeLimitMs === undefined) {
    try {
      return ok(await fn(new QuietContext(attempt, traceContext)));
    } catch (error) {
      return failed(error);
    }
  }

  const controller = new AbortController();
  const abort = () => controller.abort(callSignal?.reason);
  callSignal?.addEventListener('abort', abort, { once: true });
  const stopTimer = new AbortController();
  try {
    const interrupted = new Promise<Outcome<T>>((resolve) => {
      controller.signal.addEventListener('abort', () => resolve(failed<T>(controller.signal.reason)), {
        once: true,
      });
    });
    if (timeLimitMs !== undefined) {
      clock.sleep(timeLimitMs, stopTimer.signal).then(
        () => controller.abort(new AttemptTimeoutError(timeLimitMs)),
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
    return await Promise.race([run, interrupted]);
  } finally {
    stopTimer.abort();
    callSignal?.removeEventListener('abort', abort);
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
