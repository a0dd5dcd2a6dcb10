import { getRuntime } from '../runtime';
import type { MetricsSource } from './metrics-source';
import type { Annotation, BreakerPageQuery, CallsQuery, CompareBy, TimeQuery } from './types';

/*
 * The page-level reads (one async function per panel, as in the Next.js learn dashboard). Each goes through
 * the MetricsSource, logs the cause of a failure and rethrows a generic error for the error boundary.
 */

const source = (): MetricsSource => getRuntime().source;

async function read<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    console.error(`[dashboard] failed to fetch ${what}:`, error);
    throw new Error(`Failed to fetch ${what}.`);
  }
}

export const fetchSummary = (q: TimeQuery) => read('summary', () => source().summary(q));
export const fetchHeadline = (q: TimeQuery) => read('headline', () => source().headline(q));
export const fetchEfficiencySeries = (q: TimeQuery) =>
  read('efficiency series', () => source().efficiencySeries(q));
export const fetchCallSeries = (q: TimeQuery) => read('call series', () => source().callSeries(q));
export const fetchErrorSeries = (q: TimeQuery, by: 'class' | 'type') =>
  read('error series', () => source().errorSeries(q, by));
export const fetchErrorBreakdown = (q: TimeQuery, by: 'class' | 'type' | 'server' | 'tool') =>
  read(`errors by ${by}`, () => source().errorBreakdown(q, by));
export const fetchBreakerTiles = (q: TimeQuery) => read('breakers', () => source().breakerTiles(q));
export const fetchBreakerPage = (q: TimeQuery, page: BreakerPageQuery) =>
  read('breakers', () => source().breakerPage(q, page));
export const fetchBreakerTimeline = (q: TimeQuery) =>
  read('breaker timeline', () => source().breakerTimeline(q));
/** Calls per page of the Calls page. */
export const CALLS_PER_PAGE = 50;
/** One page of the Calls page (newest first) and how many calls match in all. */
export const fetchRecentCalls = (q: CallsQuery, page = 1) =>
  read('recent calls', async () => {
    const [calls, total] = await Promise.all([
      source().recentCalls(q, { limit: CALLS_PER_PAGE, offset: (page - 1) * CALLS_PER_PAGE }),
      source().countCalls(q),
    ]);
    return { calls, total, offset: (page - 1) * CALLS_PER_PAGE };
  });
export const fetchLatency = (q: TimeQuery) => read('latency', () => source().latency(q));
export const fetchCompare = (q: TimeQuery, by: CompareBy) =>
  read(`compare by ${by}`, () => source().compare(q, by));
export const fetchErrorMatrix = (q: TimeQuery) => read('errors by type', () => source().errorMatrix(q));

/** Slices of a chart's range marks are aggregated into (about a pixel column each on a wide chart). */
export const MARK_SLICES = 120;
/** Alert history rows read for a range's marks at most (the history keeps `MAX_ALERT_HISTORY`). */
const MAX_ALERT_MARK_ROWS = 10_000;

/**
 * Marks for every time chart of a window: every breaker transition and every alert firing or resolving of the
 * range, one mark per slice (range / MARK_SLICES) and state, with the count it stands for, so a flapping
 * breaker cannot push earlier outages and alerts off the chart.
 */
export async function fetchAnnotations(q: TimeQuery): Promise<Annotation[]> {
  const sliceMs = Math.max(1, Math.ceil((q.to - q.from) / MARK_SLICES));
  const [transitions, history] = await Promise.all([
    read('transitions', () => source().transitionMarks(q, sliceMs)),
    Promise.resolve().then(() => {
      try {
        return getRuntime().alertStore.historyBetween(q.from, q.to, MAX_ALERT_MARK_ROWS, [
          'firing',
          'resolved',
        ]);
      } catch (error) {
        console.error('[dashboard] failed to fetch alert history:', error);
        return [];
      }
    }),
  ]);
  const alerts = new Map<string, { t: number; state: string; names: Map<string, number>; count: number }>();
  for (const h of history) {
    if (h.at < q.from || h.at >= q.to || (h.state !== 'firing' && h.state !== 'resolved')) continue;
    const key = `${Math.floor((h.at - q.from) / sliceMs)}\u0001${h.state}`;
    const a = alerts.get(key) ?? { t: h.at, state: h.state, names: new Map(), count: 0 };
    a.t = Math.min(a.t, h.at);
    a.count++;
    a.names.set(h.name, (a.names.get(h.name) ?? 0) + 1);
    alerts.set(key, a);
  }
  const marks: Annotation[] = [
    ...transitions.map((t) => ({
      t: t.t,
      kind: 'transition' as const,
      state: t.to,
      count: t.count,
      label:
        t.count === 1
          ? `${t.example} → ${t.to}`
          : `${t.count} transitions → ${t.to} (${t.breakers === 1 ? t.example : `${t.breakers} breakers, first ${t.example}`})`,
    })),
    ...[...alerts.values()].map((a) => ({
      t: a.t,
      kind: 'alert' as const,
      state: a.state,
      count: a.count,
      label:
        a.count === 1
          ? `${[...a.names.keys()][0]} ${a.state}`
          : `${a.count} alerts ${a.state}: ${[...a.names].map(([n, c]) => (c > 1 ? `${n} ×${c}` : n)).join(', ')}`,
    })),
  ];
  return marks.sort((a, b) => a.t - b.t || a.kind.localeCompare(b.kind));
}
export const fetchDimensions = (q: TimeQuery) => read('filters', () => source().dimensions(q));
export const sourceCapabilities = () => source().capabilities;

/** How agents reach this dashboard's OTLP receiver: `PUBLIC_URL`, else the address the page was asked on. */
export function fetchConnectInfo(requestOrigin: string) {
  const rt = getRuntime();
  return {
    baseUrl: (rt.config.publicUrl ?? requestOrigin).replace(/\/+$/, ''),
    tokenRequired: rt.config.ingestToken !== undefined,
    receivesOtlp: rt.source.kind === 'embedded',
  };
}

export function fetchAlerts() {
  const rt = getRuntime();
  return {
    rules: rt.alertStore.rules(),
    instances: rt.alertStore.instances(),
    history: rt.alertStore.history(100),
    targets: rt.alertStore.targets(),
    deliveries: rt.alertStore.deliveries(30),
  };
}

export function fetchFiringAlerts() {
  try {
    return getRuntime().alertStore.firing();
  } catch (error) {
    console.error('[dashboard] failed to fetch firing alerts:', error);
    return [];
  }
}
