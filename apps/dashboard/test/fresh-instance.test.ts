import { afterEach, describe, expect, it } from 'vitest';
import { bucketElapsed } from '@/lib/data/bucket-elapsed';
import { EmbeddedSource } from '@/lib/data/embedded-source';
import { createIngestSink } from '@/lib/ingest/ingest-sink';
import { decodeMetrics } from '@/lib/otlp/decode';
import { EmbeddedStore } from '@/lib/store/embedded-store';
import { callsChartRows } from '@/ui/overview/calls-chart-rows';
import { sumRequest } from './support/otlp-json';
import { tempDir } from './support/runtime';

/*
 * Issue #22, the embedded store: an instance seen in one export only. A first cumulative export says nothing
 * of the time its count covers (the SDK starts a series at its first call), so the instance had no export
 * recorded and its still-filling bucket fell back to the time up to now: 120 calls made over 30.5 s read
 * 4,800/min, over the 1.5 s since the bucket began. It is now recorded without an interval, with when its calls
 * began (its series' start): a bucket that holds calls begun before it is a gap, one that holds them all reads
 * its rate so far. A
 * second export (its interval is the time since the first) and a first delta export (its start is given) are
 * exact already. Through the real OTLP/JSON ingest, on an injected clock.
 */

const START = 1_800_000_000_000;
const stores: EmbeddedStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
});

function open() {
  let now = START;
  const store = new EmbeddedStore({
    dataDir: tempDir(),
    retentionMs: 86_400_000,
    maxCalls: 100,
    maxAttempts: 100,
    now: () => now,
  });
  stores.push(store);
  const source = new EmbeddedSource(store, { staleMs: 600_000 });
  /**
   * One export of `calls` (cumulative: the total so far, its series started by the SDK at the first call, after
   * the store began) at `timeMs`, received 200 ms later.
   */
  const exportAt = (
    timeMs: number,
    calls: number,
    options: { instance?: string; temporality?: 1 | 2; startMs?: number } = {},
  ) => {
    now = timeMs + 200;
    const attributes = { 'mcp.resilience.server': 'weather', 'mcp.resilience.outcome': 'success' };
    const body = sumRequest(
      'mcp.resilience.calls',
      [{ timeMs, startMs: options.startMs ?? START + 500, asInt: calls, attributes }],
      { service: 'agent', instance: options.instance ?? 'i-1', temporality: options.temporality },
    );
    createIngestSink(store).metrics(decodeMetrics(new TextEncoder().encode(JSON.stringify(body)), 'json'));
  };
  /** The 15m chart's still-filling bucket at `at`: its count and its rate as drawn (null: a gap). */
  const filling = async (at: number) => {
    now = at;
    const s = await source.callSeries({ from: at - 15 * 60_000, to: at, filters: {} });
    const last = s.points.at(-1)!;
    expect(last.t).toBeGreaterThanOrEqual(s.partialFrom!);
    const drawn = callsChartRows(s).at(-1)!.partialSuccess;
    return { count: last.success, drawn, rate: (last.success / bucketElapsed(s, last.t, last.t)) * 60_000 };
  };
  return { exportAt, filling };
}

describe('the still-filling bucket of an instance seen in one export (embedded store)', () => {
  it('is a gap when its only export is a first cumulative one, in the bucket', async () => {
    const { exportAt, filling } = open();
    exportAt(START + 31_000, 120);
    const f = await filling(START + 31_500);
    expect(f.count).toBe(120);
    expect(f.drawn).toBeNull();
  });

  it('is a gap when a steady fleet is joined by such an instance in the bucket', async () => {
    const { exportAt, filling } = open();
    // two instances exporting 120 calls/min every 60 s for 5 minutes, then a new one's first export
    for (let k = 1; k <= 5; k++) {
      exportAt(START + k * 60_000 + 2_000, k * 120, { instance: 'a' });
      exportAt(START + k * 60_000 + 4_000, k * 120, { instance: 'b' });
    }
    exportAt(START + 5 * 60_000 + 6_000, 120, { instance: 'new' });
    const f = await filling(START + 5 * 60_000 + 6_500);
    expect(f.count).toBe(360);
    expect(f.drawn).toBeNull();
  });

  it('reads the rate so far when all the calls of a first cumulative export were made in the bucket', async () => {
    const { exportAt, filling } = open();
    // the calls began 30.5 s in (the series' start), the bucket at 30 s: 120 calls in its first 1.5 s
    exportAt(START + 31_000, 120, { startMs: START + 30_500 });
    const f = await filling(START + 31_500);
    expect(f.count).toBe(120);
    expect(f.drawn).not.toBeNull();
    expect(f.rate).toBeCloseTo((120 * 60_000) / 1_500, 9);
  });

  it('reads the exact rate after a second export, or after a first delta export', async () => {
    const second = open();
    second.exportAt(START + 1_000, 120);
    second.exportAt(START + 61_000, 240);
    const s = await second.filling(START + 61_500);
    expect(s.count).toBe(120);
    expect(s.rate).toBeCloseTo(120, 9);
    const delta = open();
    delta.exportAt(START + 61_000, 120, { temporality: 1, startMs: START + 1_000 });
    const d = await delta.filling(START + 61_500);
    expect(d.count).toBe(120);
    expect(d.rate).toBeCloseTo(120, 9);
  });
});
