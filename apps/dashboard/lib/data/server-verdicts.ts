import { type Comparison, compare, type Experiment, pickControl, type Verdict } from './experiments';
import type { VariantCounts } from './experiments-types';

/** Servers given verdicts of their own on the Experiments page, at most (in the order `dimensions` lists them). */
export const MAX_VERDICT_SERVERS = 12;

/** One server's verdicts: each candidate against that server's control, from that server's calls only. */
export interface ServerVerdicts {
  readonly server: string;
  readonly comparisons: Comparison[];
}

/** A candidate whose pooled verdict some servers contradict with a significant verdict of their own. */
export interface ServersDiffer {
  readonly candidate: string;
  readonly pooled: Verdict;
  readonly servers: ReadonlyArray<{ readonly server: string; readonly verdict: Verdict }>;
}

/** The Experiments page: the pooled experiment, the per-server verdicts and where they differ. */
export interface ExperimentPage extends Experiment {
  readonly servers: ServerVerdicts[];
  readonly differ: ServersDiffer[];
}

/**
 * Per server, each candidate against the control, picked per server as the canary alert does (the banner's
 * `CanaryWorseThanControl` is per server): so the page shows the verdict the banner speaks of.
 */
export function serverVerdicts(
  perServer: ReadonlyArray<{ readonly server: string; readonly variants: readonly VariantCounts[] }>,
): ServerVerdicts[] {
  return perServer.flatMap(({ server, variants }) => {
    const control = variants.find((v) => v.variant === pickControl(variants));
    if (!control) return [];
    return [{ server, comparisons: variants.filter((v) => v !== control).map((v) => compare(v, control)) }];
  });
}

const significant = (v: Verdict) => v === 'better' || v === 'worse';

/**
 * The candidates where a server's significant verdict (better or worse) is not the pooled one: pooled over
 * servers, a server where the candidate is worse can be outweighed by the others ("Servers differ").
 */
export function serversDiffer(
  pooled: readonly Comparison[],
  servers: readonly ServerVerdicts[],
): ServersDiffer[] {
  return pooled.flatMap((p) => {
    const against = servers.flatMap(({ server, comparisons }) => {
      const c = comparisons.find((x) => x.candidate === p.candidate);
      return c && significant(c.verdict) && c.verdict !== p.verdict ? [{ server, verdict: c.verdict }] : [];
    });
    return against.length > 0 ? [{ candidate: p.candidate, pooled: p.verdict, servers: against }] : [];
  });
}
