import type { BreakerKeysPage } from './primitives';
import type { BreakerCounts, BreakerPageQuery, BreakerStateName, BreakerSummary } from './types';

/*
 * How the per-instance states of a breaker add up to what the pages show, shared by every MetricsSource so
 * that both backends aggregate the same way: the worst state among the instances still reporting, since the
 * earliest of those instances entered it.
 */

export const RANK: Readonly<Record<BreakerStateName, number>> = { closed: 0, half_open: 1, open: 2 };
export const asState = (s: string): BreakerStateName => (s === 'open' || s === 'half_open' ? s : 'closed');

/** One agent instance's view of one breaker. */
export interface InstanceBreakerState {
  readonly service: string;
  readonly instance: string;
  readonly server: string;
  /** '' for a per-server breaker. */
  readonly tool: string;
  readonly state: string;
  readonly since: number;
  /** The instance stopped reporting this breaker. */
  readonly stale: boolean;
  /** When the instance last reported it (epoch ms), where the backend knows it. */
  readonly lastSeen?: number;
}

export interface AggregatedBreaker {
  readonly server: string;
  readonly tool: string;
  readonly state: BreakerStateName;
  readonly since: number;
  /** No instance reports it any more. */
  readonly stale: boolean;
  /** Live instances per state (or, when none is live, the instances the state comes from). */
  readonly instances: Record<BreakerStateName, number>;
  /** Instances not seen for over `GONE_AFTER_MS` (exited agents), counted apart. */
  readonly gone: number;
}

/**
 * An instance not seen for this long is "gone" (an agent that exited): three of the OTel SDK's default 60 s
 * export interval (the telemetry package exports every 5 s). Its state no longer counts while a live instance
 * reports the breaker, and it is counted apart ("Closed 3 · 18 gone").
 */
export const GONE_AFTER_MS = 3 * 60_000;

const isGone = (r: InstanceBreakerState, now: number | undefined) =>
  now !== undefined && r.lastSeen !== undefined && now - r.lastSeen > GONE_AFTER_MS;

/**
 * The breakers none of whose instances reported for `GONE_AFTER_MS` (their processes exited), keyed
 * `server\u0001tool`, with their last report: the timeline stops there ("No data (gone)" after). A breaker
 * with an instance whose last report the backend does not know is left out (never cut on a guess).
 */
export function goneBreakers(rows: readonly InstanceBreakerState[], now: number): Map<string, number> {
  const last = new Map<string, number>();
  const live = new Set<string>();
  for (const r of rows) {
    const key = `${r.server}\u0001${r.tool}`;
    if (r.lastSeen === undefined || !isGone(r, now)) live.add(key);
    else last.set(key, Math.max(last.get(key) ?? r.lastSeen, r.lastSeen));
  }
  for (const key of live) last.delete(key);
  return last;
}

/** Per breaker: the worst state of its live instances (else of the gone ones, else stale), since when. */
export function aggregateBreakers(rows: readonly InstanceBreakerState[], now?: number): AggregatedBreaker[] {
  const groups = new Map<string, { server: string; tool: string; rows: InstanceBreakerState[] }>();
  for (const row of rows) {
    const key = `${row.server}\u0001${row.tool}`;
    const g = groups.get(key) ?? { server: row.server, tool: row.tool, rows: [] };
    g.rows.push(row);
    groups.set(key, g);
  }
  const result: AggregatedBreaker[] = [];
  for (const g of groups.values()) {
    const reporting = g.rows.filter((r) => !r.stale);
    const live = reporting.filter((r) => !isGone(r, now));
    const stale = reporting.length === 0;
    const considered = live.length > 0 ? live : stale ? g.rows : reporting;
    let state: BreakerStateName = 'closed';
    for (const r of considered) if (RANK[asState(r.state)] > RANK[state]) state = asState(r.state);
    const since = Math.min(...considered.filter((r) => asState(r.state) === state).map((r) => r.since));
    const instances: Record<BreakerStateName, number> = { closed: 0, open: 0, half_open: 0 };
    for (const r of considered) instances[asState(r.state)]++;
    const gone = live.length > 0 ? reporting.length - live.length : 0;
    result.push({ server: g.server, tool: g.tool, state, since, stale, instances, gone });
  }
  return result;
}

/** The breakers still reported, worst first (`GET /api/v1/summary`'s `breakers`). */
export function breakerSummaries(aggregated: readonly AggregatedBreaker[]): BreakerSummary[] {
  return aggregated
    .filter((b) => !b.stale)
    .sort(
      (a, b) =>
        RANK[b.state] - RANK[a.state] || a.server.localeCompare(b.server) || a.tool.localeCompare(b.tool),
    )
    .map((b) => ({ server: b.server, tool: b.tool === '' ? null : b.tool, state: b.state, since: b.since }));
}

/** Worst first, then by error rate and traffic: the Breakers page's tile order. */
export function compareTiles(
  a: { stale: boolean; state: BreakerStateName; errorRate: number | null; calls: number; server: string },
  b: { stale: boolean; state: BreakerStateName; errorRate: number | null; calls: number; server: string },
): number {
  return (
    Number(a.stale) - Number(b.stale) ||
    RANK[b.state] - RANK[a.state] ||
    (b.errorRate ?? -1) - (a.errorRate ?? -1) ||
    b.calls - a.calls ||
    a.server.localeCompare(b.server)
  );
}

/** Whether a breaker matches the Breakers page's text filter (case-insensitive, `server` or `server/tool`). */
export function matchesBreaker(match: string | undefined, server: string, tool: string): boolean {
  if (match === undefined || match === '') return true;
  return `${server}/${tool}`.toLowerCase().includes(match.toLowerCase());
}

/** The order of the Breakers page across pages: reported ones worst state first, then stale ones; then by name. */
export function comparePageOrder(a: AggregatedBreaker, b: AggregatedBreaker): number {
  return (
    Number(a.stale) - Number(b.stale) ||
    (a.stale ? 0 : RANK[b.state] - RANK[a.state]) ||
    (a.server < b.server ? -1 : a.server > b.server ? 1 : 0) ||
    (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0)
  );
}

/** The state a breaker is counted under on the Breakers page. */
export const shownState = (b: { stale: boolean; state: BreakerStateName }): BreakerStateName | 'stale' =>
  b.stale ? 'stale' : b.state;

/** A page of already aggregated breakers (backends without `breakerPage`): one pass, one sort. */
export function pageOfBreakers(
  aggregated: readonly AggregatedBreaker[],
  page: BreakerPageQuery,
): BreakerKeysPage {
  const counts: BreakerCounts = { open: 0, half_open: 0, closed: 0, stale: 0 };
  const matching: AggregatedBreaker[] = [];
  for (const b of aggregated) {
    if (!matchesBreaker(page.match, b.server, b.tool)) continue;
    counts[shownState(b)]++;
    if (page.state === undefined || shownState(b) === page.state) matching.push(b);
  }
  matching.sort(comparePageOrder);
  return {
    keys: matching
      .slice(page.offset, page.offset + page.limit)
      .map((b) => ({ server: b.server, tool: b.tool })),
    counts,
    total: matching.length,
  };
}
