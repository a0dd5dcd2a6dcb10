import { SlidingWindow } from './SlidingWindow.js';

export interface RetryBudgetOptions {
  readonly budgetRatio: number;
  readonly budgetMinRetriesPerSecond: number;
  readonly budgetWindowMs: number;
}

/**
 * Caps an endpoint's retries at `ratio` × its calls in the window, plus a floor of
 * `minRetriesPerSecond` × window, so that a broad failure cannot turn into a retry storm (Finagle, gRPC A6).
 */
export class RetryBudget {
  private readonly window: SlidingWindow;

  constructor(private readonly options: RetryBudgetOptions) {
    this.window = new SlidingWindow(options.budgetWindowMs);
  }

  /** Counts a logical call. */
  onCall(now: number): void {
    this.window.add(now, 1, 0);
  }

  /** Whether a retry would be allowed now (does not spend it). */
  canRetry(now: number): boolean {
    const { a: calls, b: retries } = this.window.totals(now);
    const floor = (this.options.budgetMinRetriesPerSecond * this.options.budgetWindowMs) / 1000;
    return retries + 1 <= floor + this.options.budgetRatio * calls;
  }

  /** Spends one retry. */
  spend(now: number): void {
    this.window.add(now, 0, 1);
  }
}
