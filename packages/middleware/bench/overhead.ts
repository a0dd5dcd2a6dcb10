import { ConsecutiveBreaker, circuitBreaker, ExponentialBackoff, handleAll, retry, wrap } from 'cockatiel';
import { createResilience } from '../dist/index.js';

/** Nanoseconds per call of `run`, best of `rounds` rounds of `n` calls (after a warm-up). */
export async function nsPerCall(run: () => Promise<unknown>, n = 100_000, rounds = 5): Promise<number> {
  for (let i = 0; i < n / 10; i++) await run();
  let best = Number.POSITIVE_INFINITY;
  for (let round = 0; round < rounds; round++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) await run();
    best = Math.min(best, Number(process.hrtime.bigint() - start) / n);
  }
  return best;
}

/** The success path of one call: bare, through cockatiel (retry + breaker), through `execute`. */
export async function measureOverhead() {
  const fn = async () => 42;
  const resilience = createResilience();
  const cockatiel = wrap(
    retry(handleAll, { maxAttempts: 2, backoff: new ExponentialBackoff() }),
    circuitBreaker(handleAll, { halfOpenAfter: 10_000, breaker: new ConsecutiveBreaker(5) }),
  );
  const bare = await nsPerCall(fn);
  const viaCockatiel = await nsPerCall(() => cockatiel.execute(fn));
  const viaExecute = await nsPerCall(() => resilience.execute(fn, { endpoint: 'bench' }));
  return { bare, cockatiel: viaCockatiel, execute: viaExecute };
}
