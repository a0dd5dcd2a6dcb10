import type { CompareGroup } from './types';

/** What compare mode shows per group, beside the failure share: what the group got done and what failing cost. */
export interface CompareNumbers {
  /** Calls that did not succeed (failure and rejected), and their share of the calls; null without calls. */
  readonly failed: number;
  readonly failedShare: number | null;
  /** Successful calls per minute of the group's data; null without data. */
  readonly successesPerMinute: number | null;
  /** Requests on the wire per successful call; null without a success. */
  readonly requestsPerSuccess: number | null;
  /** Seconds the failed calls took, summed, and on average per failed call (null without one). */
  readonly failedSeconds: number;
  readonly secondsPerFailedCall: number | null;
}

export function compareNumbers(g: CompareGroup): CompareNumbers {
  const failed = g.failures + g.rejected;
  return {
    failed,
    failedShare: g.callsTotal > 0 ? failed / g.callsTotal : null,
    successesPerMinute: g.dataSeconds > 0 ? g.successes / (g.dataSeconds / 60) : null,
    requestsPerSuccess: g.successes > 0 ? g.requests / g.successes : null,
    failedSeconds: g.failedSeconds,
    secondsPerFailedCall: failed > 0 ? g.failedSeconds / failed : null,
  };
}
