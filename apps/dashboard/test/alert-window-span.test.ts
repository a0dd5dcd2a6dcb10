import { afterEach, describe, expect, it } from 'vitest';
import { AlertService } from '@/lib/alerts/alert-service';
import { AlertStore } from '@/lib/alerts/alert-store';
import { createNotifier } from '@/lib/alerts/notifier';
import { fmtSpan, windowSpan } from '@/lib/alerts/window-span';
import { EmbeddedSource } from '@/lib/data/embedded-source';
import { createIngestSink } from '@/lib/ingest/ingest-sink';
import { decodeMetrics } from '@/lib/otlp/decode';
import { openDatabase } from '@/lib/store/database';
import { EmbeddedStore } from '@/lib/store/embedded-store';
import { type JsonPoint, sumRequest } from './support/otlp-json';
import { tempDir } from './support/runtime';

/*
 * Issue #22: a pending alert said "over 60m" when its server's retries had begun 4 minutes before. The summary
 * names the span its value covers: the window when the data reaches back to its start, else the time since
 * the data began and when that was.
 */

const MIN = 60_000;

describe('windowSpan', () => {
  const now = Date.UTC(2026, 11, 3, 12, 5, 0);
  it('names the window when the data reaches back to its start', () => {
    expect(windowSpan(60 * MIN, now - 60 * MIN, now)).toBe('60m');
    expect(windowSpan(60 * MIN, now - 60 * MIN + 5_000, now)).toBe('60m'); // within one 10 s bucket
    expect(windowSpan(60 * MIN, null, now)).toBe('60m');
  });
  it('names the span since the data began, and when, when that is later', () => {
    expect(windowSpan(60 * MIN, now - 4 * MIN, now)).toBe('4m (data since 12:01 UTC)');
    expect(windowSpan(5 * MIN, now - 4 * MIN, now, { since: false })).toBe('4m');
    expect(windowSpan(60 * MIN, now - 90_000, now)).toBe('1m 30s (data since 12:03 UTC)');
    expect(fmtSpan(45_000)).toBe('45s');
    expect(fmtSpan(60_000)).toBe('1m');
    expect(fmtSpan(37 * MIN + 20_000)).toBe('37m');
  });
});

const open: EmbeddedStore[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

/** Retries of one server through the real OTLP ingest: a 10 s delta point at each time, 1 in 5 successful. */
function ingestRetries(store: EmbeddedStore, server: string, times: readonly number[]) {
  const points = times.flatMap((t): JsonPoint[] => [
    {
      timeMs: t,
      startMs: t - 10_000,
      asInt: 4,
      attributes: { 'mcp.resilience.server': server, 'mcp.resilience.outcome': 'failure' },
    },
    {
      timeMs: t,
      startMs: t - 10_000,
      asInt: 1,
      attributes: { 'mcp.resilience.server': server, 'mcp.resilience.outcome': 'success' },
    },
  ]);
  const body = sumRequest('mcp.resilience.retries', points, { temporality: 1, service: `agent-${server}` });
  createIngestSink(store).metrics(decodeMetrics(new TextEncoder().encode(JSON.stringify(body)), 'json'));
}

/*
 * The clock is injected: with the real one, 1 s in every 30 s (Date.now() % 30 s in [29 s, 30 s)) put the
 * search server's first point, 1 s after the window's start, in the hour's second 30 s bucket, and the test
 * read a data start 1 s after the window's: one run of the suite in 30 failed, whatever the load. Both
 * phases are tested: the window's start in the middle of a bucket and 0.5 s before a bucket's end.
 */
const CLOCKS = [
  ['mid-bucket', Date.UTC(2026, 11, 3, 12, 5, 0)],
  ['its first point in the second bucket', Date.UTC(2026, 11, 3, 12, 5, 29, 500)],
] as const;

describe('the retry-efficiency alert names the span its value covers (embedded store)', () => {
  it.each(CLOCKS)(
    'says "over 4m (data since …)" for retries that began 4 minutes ago, and "over 60m" for a full hour (%s)',
    async (_phase, now) => {
      const store = new EmbeddedStore({
        dataDir: tempDir(),
        retentionMs: 7 * 86_400_000,
        maxCalls: 100,
        maxAttempts: 100,
        now: () => now,
      });
      open.push(store);
      const source = new EmbeddedSource(store, { staleMs: 600_000 });
      // weather: 30 retries over the last 4 minutes; search: retries since the hour's first seconds
      ingestRetries(store, 'weather', [
        now - 4 * MIN,
        now - 2 * MIN,
        now - 30_000,
        now - 20_000,
        now - 10_000,
        now - 5_000,
      ]);
      ingestRetries(store, 'search', [
        now - 60 * MIN + 1_000,
        now - 30 * MIN,
        now - 3 * MIN,
        now - 2 * MIN,
        now - MIN,
        now - 5_000,
      ]);
      const starts = await source.dataStartByServer(
        { from: now - 60 * MIN, to: now + 1, filters: {} },
        'retries',
      );
      expect(starts.get('weather')).toBeGreaterThan(now - 4 * MIN - 10_000);
      expect(starts.get('weather')).toBeLessThanOrEqual(now - 4 * MIN);
      // the hour's first seconds: the window's start, or the start of the bucket after it (< 10 s later)
      expect(starts.get('search')).toBeGreaterThanOrEqual(now - 60 * MIN);
      expect(starts.get('search')).toBeLessThan(now - 60 * MIN + 10_000);

      const alerts = new AlertStore(openDatabase(':memory:').db, () => now);
      await new AlertService({ store: alerts, source, notify: createNotifier(), now: () => now }).evaluate();
      const summary = (server: string) =>
        alerts.instances().find((i) => i.labels.mcp_resilience_server === server)?.summary;
      expect(summary('weather')).toBe(
        'Retry efficiency for weather is 20% over 4m (data since 12:01 UTC; 30 retries; target 80%)',
      );
      expect(summary('search')).toBe(
        'Retry efficiency for search is 20% over 60m (20% over 5m; 30 retries; target 80%)',
      );
    },
  );
});
