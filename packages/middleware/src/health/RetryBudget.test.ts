import { describe, expect, it } from 'vitest';
import { RetryBudget } from './RetryBudget.js';

describe('RetryBudget', () => {
  const options = { budgetRatio: 0.2, budgetMinRetriesPerSecond: 0.5, budgetWindowMs: 10_000 };

  it('always allows the floor of retries on a quiet endpoint', () => {
    const budget = new RetryBudget(options);
    for (let i = 0; i < 5; i++) {
      expect(budget.canRetry(0)).toBe(true);
      budget.spend(0);
    }
    expect(budget.canRetry(0)).toBe(false);
  });

  it('allows retries up to the ratio of calls above the floor', () => {
    const budget = new RetryBudget(options);
    for (let i = 0; i < 100; i++) budget.onCall(0);
    let allowed = 0;
    while (budget.canRetry(0)) {
      budget.spend(0);
      allowed++;
    }
    expect(allowed).toBe(5 + 20);
  });

  it('forgets retries once they leave the window', () => {
    const budget = new RetryBudget(options);
    for (let i = 0; i < 5; i++) budget.spend(0);
    expect(budget.canRetry(9_000)).toBe(false);
    expect(budget.canRetry(10_000)).toBe(true);
  });
});

describe('RetryBudget under a brownout and a storm', () => {
  const options = { budgetRatio: 0.2, budgetMinRetriesPerSecond: 0, budgetWindowMs: 10_000 };

  /** 100 calls, each retried while the budget allows, `succeeds(i)` telling whether retry i gets through. */
  const run = (succeeds: (i: number) => boolean) => {
    const budget = new RetryBudget(options);
    for (let i = 0; i < 100; i++) budget.onCall(0);
    let allowed = 0;
    for (let i = 0; i < 1_000 && budget.canRetry(0); i++) {
      budget.spend(0);
      allowed++;
      if (succeeds(i)) budget.onRetrySuccess(0);
    }
    return allowed;
  };

  it('does not limit retries while at least half of them succeed (a brownout)', () => {
    expect(run((i) => i % 2 === 0)).toBe(1_000);
  });

  it('stops retries that keep failing at the ratio of calls (a storm)', () => {
    expect(run(() => false)).toBe(20);
  });

  it('lets retries that mostly fail through only as far as their successes pay', () => {
    // one in four succeeds: 4 retries cost 4 - 2 = 2 of the 20, so about twice the ratio (9 successes in 38)
    expect(run((i) => i % 4 === 3)).toBe(38);
  });
});
