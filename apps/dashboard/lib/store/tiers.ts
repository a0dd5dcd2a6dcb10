import { alignDown, alignUp, NICE_STEPS } from '../data/time-buckets';
/** A resolution of the pre-aggregated facts and how long it is kept. */
export interface Tier {
  readonly id: number;
  readonly res: number;
  readonly keepMs: number;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Tiers from fine to coarse: 10 s kept 6 h, 1 min kept 2 days, 10 min kept 8 days, 1 h kept the retention. */
export function makeTiers(retentionMs: number): Tier[] {
  return [
    { id: 0, res: 10_000, keepMs: Math.min(retentionMs, 6 * HOUR) },
    { id: 1, res: 60_000, keepMs: Math.min(retentionMs, 2 * DAY) },
    { id: 2, res: 600_000, keepMs: Math.min(retentionMs, 8 * DAY) },
    { id: 3, res: HOUR, keepMs: retentionMs },
  ];
}

// One bucket arithmetic for the store and the PromQL backend.
export { alignDown, alignUp };

/** Buckets `[from, to)` (bucket start times) of one tier. */
export interface Piece {
  readonly tier: number;
  readonly from: number;
  readonly to: number;
}

const available = (tier: Tier, at: number, now: number): boolean => at >= now - tier.keepMs;

/** The ingest refuses points later than now + its skew (at most a day): nothing is stored beyond this. */
const MAX_FUTURE_MS = DAY + HOUR;

/**
 * A range cut to where data can exist: not before the retention of the coarsest tier (retention deletes it and
 * the ingest refuses it), not after now + the largest future skew the ingest accepts. Planning then costs what
 * is stored, not what was asked: `from=0` plans the retention, not 56 years of hours.
 */
export function clampRange(from: number, to: number, now: number, tiers: readonly Tier[]) {
  const coarsest = tiers[tiers.length - 1]!;
  return {
    from: Math.max(from, alignDown(now - coarsest.keepMs - coarsest.res, coarsest.res)),
    to: Math.min(to, now + MAX_FUTURE_MS),
  };
}

/**
 * Splits a time range into pieces read from the coarsest tier that fits: whole hours from the hour tier,
 * whole minutes around them from the minute tier, 10 s buckets at the edges. A bucket counts when it starts
 * in `[alignDown(from), to)`, so results are exact to the finest bucket still kept at each edge.
 */
export function planRange(fromMs: number, toMs: number, now: number, tiers: readonly Tier[]): Piece[] {
  const { from, to } = clampRange(fromMs, toMs, now, tiers);
  if (!(to > from)) return [];
  const coarseFirst = [...tiers].reverse();
  const finestAt = (at: number) => tiers.find((t) => available(t, at, now)) ?? tiers[tiers.length - 1]!;
  let cursor = alignDown(from, finestAt(from).res);
  const pieces: Piece[] = [];
  const push = (p: Piece) => {
    const last = pieces[pieces.length - 1];
    if (last && last.tier === p.tier && last.to === p.from) pieces[pieces.length - 1] = { ...last, to: p.to };
    else pieces.push(p);
  };
  while (cursor < to) {
    let placed = false;
    for (const [i, t] of coarseFirst.entries()) {
      if (cursor % t.res !== 0 || !available(t, cursor, now)) continue;
      // Stop at the next boundary of the coarser tier, from where that tier takes over.
      const coarser = coarseFirst[i - 1];
      const end = Math.min(
        alignDown(to, t.res),
        coarser ? alignUp(cursor + 1, coarser.res) : Number.POSITIVE_INFINITY,
      );
      if (end > cursor) {
        push({ tier: t.id, from: cursor, to: end });
        cursor = end;
        placed = true;
        break;
      }
    }
    if (!placed) {
      const t = tiers.find((x) => cursor % x.res === 0 && available(x, cursor, now)) ?? coarseFirst[0]!;
      push({ tier: t.id, from: cursor, to: cursor + t.res });
      cursor += t.res;
    }
  }
  return pieces;
}

/** How a chart's range is bucketed: the tier read and the step (a multiple of the tier's resolution). */
export interface SeriesPlan {
  readonly tier: number;
  readonly step: number;
  /** First point's time (aligned to the step); points are origin + k * step, k = 0..count-1. */
  readonly origin: number;
  readonly count: number;
}

/**
 * Down-sampling on the server: at most about `maxPoints` points, read from the coarsest tier that can; a step
 * of at least `dataStepMs` (the data's own resolution, `dataStep`).
 */
export function planSeries(
  fromMs: number,
  toMs: number,
  now: number,
  tiers: readonly Tier[],
  maxPoints = 200,
  dataStepMs = 0,
): SeriesPlan {
  const clamped = clampRange(fromMs, toMs, now, tiers);
  // A range wholly outside the data keeps one empty point, never a huge count.
  const from = clamped.to > clamped.from ? clamped.from : Math.min(fromMs, clamped.from);
  const to = clamped.to > clamped.from ? clamped.to : from + 1;
  const span = Math.max(1, to - from);
  // Beyond the largest nice step (long retentions), whole days: the count stays within maxPoints.
  let step = Math.max(
    dataStepMs,
    NICE_STEPS.find((s) => s * maxPoints >= span) ?? alignUp(Math.ceil(span / maxPoints), DAY),
  );
  let tier = [...tiers].reverse().find((t) => t.res <= step && step % t.res === 0 && available(t, from, now));
  if (!tier) {
    tier = tiers.find((t) => available(t, from, now)) ?? tiers[tiers.length - 1]!;
    step = Math.max(step, tier.res);
    step = alignUp(step, tier.res);
  }
  const origin = alignDown(from, step);
  const count = Math.max(1, Math.ceil((to - origin) / step));
  return { tier: tier.id, step, origin, count };
}
