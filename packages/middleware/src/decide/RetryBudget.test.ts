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
