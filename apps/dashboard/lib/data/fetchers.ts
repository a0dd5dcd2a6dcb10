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

/** At most this many marks per chart (the newest). */
const MAX_ANNOTATIONS = 60;

/**
 * Marks for every time chart of a window: breaker transitions (per breaker, the instances' changes of the
 * worst state are what matters: one mark per transition) and alerts firing or resolving.
 */
export async function fetchAnnotations(q: TimeQuery): Promise<Annotation[]> {
  const [transitions, history] = await Promise.all([
    read('transitions', () => source().transitions(q, { limit: MAX_ANNOTATIONS })),
    Promise.resolve().then(() => {
      try {
        return getRuntime().alertStore.historyBetween(q.from, q.to, MAX_ANNOTATIONS, ['firing', 'resolved']);
      } catch (error) {
        console.error('[dashboard] failed to fetch alert history:', error);
        return [];
      }
    }),
  ]);
  const marks: Annotation[] = [
    ...transitions.map((t) => ({
      t: t.ts,
      kind: 'transition' as const,
      state: t.to,
      label: `${t.server}${t.tool ? `/${t.tool}` : ''} → ${t.to}`,
    })),
    ...history
      .filter((h) => h.at >= q.from && h.at < q.to && (h.state === 'firing' || h.state === 'resolved'))
      .map((h) => ({ t: h.at, kind: 'alert' as const, state: h.state, label: `${h.name} ${h.state}` })),
  ];
  const seen = new Set<string>();
  return marks
    .sort((a, b) => a.t - b.t)
    .filter((m) => {
      const key = `${m.kind}-${m.t}-${m.state}-${m.label}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .slice(-MAX_ANNOTATIONS);
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
