import { naiveRetryAt } from './naiveRetryAt.js';

/** What `loneProbeAt` needs: the breaker's own next probe for a lone waiter, and the outage's first naive call. */
export interface LoneProbeInput {
  readonly now: number;
  /** The probe that the lone schedule (`probeDelay` for one waiter: a quarter of the outage's age) has due. */
  readonly dueAt: number;
  /** When the outage began (its first unhealthy failure): the naive loop's first call started then. */
  readonly outageStart: number;
  /** How long that call may last: the waiting call's limit, from its start. */
  readonly spanMs: number;
}

/**
 * When a call waiting alone at an open breaker is probed. Within the naive loop's first call of the outage (from
 * its first failure, to +31 s or the waiting call's limit), the probe that is due moves to that loop's next retry
 * (`naiveRetryAt`: +1, +3, +7, +15, +31 s) when the retry comes before it, or at most one more such wait after it
 * (`dueAt + (dueAt − now)`); otherwise it stays due. So each of the naive loop's retries is a probe (a recovery is
 * seen no later than that loop would see it), while a probe moved later stands for the one it replaces (the bench's
 * sweep measured fewer requests into a down endpoint at 8-60 s outages, the README's breaker section). Past that
 * call, the lone schedule alone.
 */
export function loneProbeAt(input: LoneProbeInput): number {
  const { now, dueAt } = input;
  const naive = naiveRetryAt(input.outageStart, input.spanMs, now);
  return naive !== undefined && naive <= dueAt + (dueAt - now) ? naive : dueAt;
}
