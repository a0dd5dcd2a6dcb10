import { SlidingWindow } from './SlidingWindow.js';

export interface RetryBudgetOptions {
  readonly budgetRatio: number;
  readonly budgetMinRetriesPerSecond: number;
  readonly budgetWindowMs: number;
}

/**
 * Caps an endpoint's wasted retries so that a broad failure cannot turn into a retry storm (Finagle, gRPC A6),
 * without starving a brownout. Over the window, a retry is allowed while
 *
 *   retries − 2 × successful retries < `ratio` × calls + `minRetriesPerSecond` × window
 *
 * (a retry in flight counts as failed until it succeeds). A retry that succeeds pays for itself and for one
 * that failed: while at least half of the retries get
 * through (a random 30-50% failure rate on a healthy server), retries are not limited; when they mostly fail
 * (an outage, an overload that retries only make worse), they stop at `ratio` of the calls plus the floor.
 */
export class RetryBudget {
  /** a: calls, b: retries spent. */
  private readonly spent: SlidingWindow;
  /** a: retries that succeeded. */
  private readonly succeeded: SlidingWindow;

  constructor(private readonly options: RetryBudgetOptions) {
    this.spent = new SlidingWindow(options.budgetWindowMs);
    this.succeeded = new SlidingWindow(options.budgetWindowMs);
  }

  /** Counts a call (the budget grows with traffic). */
  onCall(now: number): void {
    this.spent.add(now, 1, 0);
  }

  /** Whether a retry would be allowed now (does not spend it). */
  canRetry(now: number): boolean {
    const { a: calls, b: retries } = this.spent.totals(now);
    const succeeded = this.succeeded.totals(now).a;
    const floor = (this.options.budgetMinRetriesPerSecond * this.options.budgetWindowMs) / 1000;
    return retries - 2 * succeeded + 1 <= floor + this.options.budgetRatio * calls;
  }

  /** Spends one retry. */
  spend(now: number): void {
    this.spent.add(now, 0, 1);
  }

  /** A retry (an attempt after the first) succeeded: it refunds itself and one failed retry. */
  onRetrySuccess(now: number): void {
    this.succeeded.add(now, 1, 0);
  }
}
