import { getRuntime } from '../runtime';
import type { MetricsSource } from './metrics-source';
import type { TimeQuery } from './types';

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
export const fetchBreakerTimeline = (q: TimeQuery) =>
  read('breaker timeline', () => source().breakerTimeline(q));
export const fetchRecentCalls = (q: TimeQuery, only?: 'failed' | 'retried') =>
  read('recent calls', () => source().recentCalls(q, { limit: 50, only }));
export const fetchDimensions = (q: TimeQuery) => read('filters', () => source().dimensions(q));
export const sourceCapabilities = () => source().capabilities;

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
