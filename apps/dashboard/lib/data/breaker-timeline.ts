import type { StateChange } from './primitives';
import type { BreakerTimelineRow, TimelineSegment, TimeQuery } from './types';

/**
 * The breaker timeline of a window from the backends' state changes: per breaker, one segment from each change
 * to the next (the last to the window's end). The first change of a breaker is where its data begins, so a
 * breaker has no state before any of its data existed; changes at the same time keep the last; equal
 * neighbours are one segment.
 */
export function breakerTimeline(q: TimeQuery, changes: readonly StateChange[]): BreakerTimelineRow[] {
  const byBreaker = new Map<string, StateChange[]>();
  for (const c of changes) {
    const key = `${c.server}\u0001${c.tool}`;
    const list = byBreaker.get(key);
    if (list) list.push(c);
    else byBreaker.set(key, [c]);
  }
  const rows: BreakerTimelineRow[] = [];
  for (const list of byBreaker.values()) {
    const first = list[0]!;
    rows.push({
      server: first.server,
      tool: first.tool === '' ? null : first.tool,
      segments: segmentsOf(q, list),
    });
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
