import type { StateChange } from './primitives';
import type { BreakerTimelineRow, TimelineSegment, TimeQuery } from './types';

/**
 * The breaker timeline of a window from the backends' state changes: per breaker, one segment from each change
 * to the next (the last to the window's end). The first change of a breaker is where its data begins, so a
 * breaker has no state before any of its data existed; changes at the same time keep the last; equal
 * neighbours are one segment. A breaker in `gone` (every instance stopped reporting, with its last report)
 * ends there: no state is painted after its data stopped.
 */
export function breakerTimeline(
  q: TimeQuery,
  changes: readonly StateChange[],
  gone: ReadonlyMap<string, number> = new Map(),
): BreakerTimelineRow[] {
  const byBreaker = new Map<string, StateChange[]>();
  for (const c of changes) {
    const key = `${c.server}\u0001${c.tool}`;
    const list = byBreaker.get(key);
    if (list) list.push(c);
    else byBreaker.set(key, [c]);
  }
  const rows: BreakerTimelineRow[] = [];
  for (const [key, list] of byBreaker) {
    const first = list[0]!;
    const row = { server: first.server, tool: first.tool === '' ? null : first.tool };
    const goneFrom = gone.get(key);
    if (goneFrom === undefined || goneFrom >= q.to) rows.push({ ...row, segments: segmentsOf(q, list) });
    else rows.push({ ...row, segments: endedAt(segmentsOf(q, list), goneFrom), goneFrom });
  }
  return rows.sort((a, b) => a.server.localeCompare(b.server) || (a.tool ?? '').localeCompare(b.tool ?? ''));
}

/** One breaker's segments from its changes (in time order), each clamped to the window. */
function segmentsOf(q: TimeQuery, changes: readonly StateChange[]): TimelineSegment[] {
  const clamp = (t: number) => Math.min(q.to, Math.max(q.from, t));
  const sorted = [...changes].sort((a, b) => a.t - b.t);
  const segments: TimelineSegment[] = [];
  const push = (s: TimelineSegment) => {
    const last = segments[segments.length - 1];
    if (last && last.state === s.state && last.to === s.from)
      segments[segments.length - 1] = { ...last, to: s.to };
    else segments.push(s);
  };
  let from = clamp(sorted[0]!.t);
  let state = sorted[0]!.worst;
  for (const c of sorted.slice(1)) {
    const t = clamp(c.t);
    if (c.worst === state) continue;
    if (t > from) push({ from, to: t, state });
    from = Math.max(from, t);
    state = c.worst;
  }
  push({ from, to: q.to, state });
  return segments;
}

/** The segments cut at `t` (the breaker's last report): nothing after it. */
function endedAt(segments: readonly TimelineSegment[], t: number): TimelineSegment[] {
  return segments.filter((s) => s.from < t).map((s) => (s.to > t ? { ...s, to: t } : s));
}
