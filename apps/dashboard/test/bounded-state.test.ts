import { describe, expect, it } from 'vitest';
import { type AlertInstance, AlertStore } from '@/lib/alerts/alert-store';
import { openDatabase } from '@/lib/store/database';
import { clampRange, makeTiers, planRange, planSeries } from '@/lib/store/tiers';
import { sumRequest } from './support/otlp-json';
import { startTestServer } from './support/runtime';

const DAY = 86_400_000;

const instance = (key: string, state: AlertInstance['state'], updated: number): AlertInstance => ({
  key,
  source: 'alertmanager',
  ruleId: '',
  name: key,
  labels: { alertname: key },
  state,
  activeAt: updated,
  firedAt: updated,
  lastTrueAt: updated,
  resolvedAt: state === 'resolved' ? updated : null,
  value: null,
  summary: '',
  updated,
});

describe('alert state is bounded', () => {
  it('prunes history beyond MAX_ALERT_HISTORY and resolved instances after ALERT_RESOLVED_KEEP_MS', () => {
    let now = 1_000_000;
    const store = new AlertStore(openDatabase(':memory:').db, () => now, {
      maxHistory: 100,
      resolvedKeepMs: 60_000,
      maxInstances: 50,
    });
    for (let i = 0; i < 150; i++) {
      store.addHistory({
        at: now + i,
        key: `k${i}`,
        source: 'rule',
        name: 'A',
        labels: {},
        state: 'firing',
        value: null,
        summary: '',
      });
    }
    store.upsertInstance(instance('old', 'resolved', now));
    store.upsertInstance(instance('firing', 'firing', now));
    now += 61_000;
    store.prune(0);
    expect(store.history(1000)).toHaveLength(100);
    expect(store.history(1)[0]!.key).toBe('k149');
    expect(store.instances().map((i) => i.key)).toEqual(['firing']);
  });

  it('makes room for new instances by dropping the oldest resolved ones, never firing ones', () => {
    const store = new AlertStore(openDatabase(':memory:').db, () => 0, { maxInstances: 10 });
    for (let i = 0; i < 5; i++) store.upsertInstance(instance(`r${i}`, 'resolved', i));
    for (let i = 0; i < 5; i++) store.upsertInstance(instance(`f${i}`, 'firing', 10 + i));
    expect(store.room()).toBe(1); // r0 (the oldest resolved) dropped to make room
    expect(store.instance('r0')).toBeUndefined();
    for (let i = 5; i < 12; i++) {
      if (store.room() > 0) store.upsertInstance(instance(`f${i}`, 'firing', 20 + i));
    }
    expect(store.firingCount()).toBe(10);
    expect(store.room()).toBe(0);
    expect(store.firing(3).map((i) => i.key)).toEqual(['f0', 'f1', 'f2']);
  });
});

describe('range queries cost what is stored, not what is asked', () => {
  const tiers = makeTiers(7 * DAY);
  const now = Date.UTC(2026, 11, 1, 3, 0, 0);

  it('plans from=0 as the retention (not 56 years of hourly steps)', () => {
    const pieces = planRange(0, now, now, tiers);
    expect(pieces[0]!.from).toBeGreaterThanOrEqual(now - 7 * DAY - 2 * 3_600_000);
    expect(pieces.length).toBeLessThan(10);
    expect(planRange(0, now, now, tiers)).toEqual(planRange(now - 7 * DAY - 3_600_000, now, now, tiers));
    expect(clampRange(0, Number.MAX_SAFE_INTEGER, now, tiers).to).toBe(now + 25 * 3_600_000);
  });

  it('caps the bucket count of a series, whatever the range or the retention', () => {
    expect(planSeries(0, now, now, tiers).count).toBeLessThanOrEqual(200);
    expect(planSeries(now - 60_000, 9_999_999_999_999, now, tiers).count).toBeLessThanOrEqual(200);
    const tenYears = makeTiers(3650 * DAY);
    expect(planSeries(0, now, now, tenYears).count).toBeLessThanOrEqual(200);
    expect(planSeries(0, 1000, now, tiers).count).toBe(1); // wholly before the data
  });

  it('answers from=0 with the same numbers as the retention window', async () => {
    const s = await startTestServer();
    try {
      const t0 = Date.now();
      await fetch(`${s.url}/v1/metrics`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(
          sumRequest('mcp.resilience.calls', [{ timeMs: t0, asInt: 6, attributes: { outcome: 'success' } }], {
            temporality: 1,
          }),
        ),
      });
      const total = async (q: string) =>
        (await (await fetch(`${s.url}/api/v1/summary?${q}`)).json()).calls.total;
      expect(await total(`from=0&to=${t0 + 60_000}`)).toBe(6);
      expect(await total(`from=${t0 - 7 * DAY}&to=${t0 + 60_000}`)).toBe(6);
      expect(await total(`from=0&to=9999999999999999`)).toBe(6);
    } finally {
      await s.close();
    }
  });
});
