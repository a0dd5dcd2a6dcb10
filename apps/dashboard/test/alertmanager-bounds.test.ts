import { describe, expect, it } from 'vitest';
import { AlertService } from '@/lib/alerts/alert-service';
import { AlertStore } from '@/lib/alerts/alert-store';
import { parseAlertmanagerPayload } from '@/lib/alerts/alertmanager';
import { createNotifier } from '@/lib/alerts/notifier';
import type { MetricsSource } from '@/lib/data/metrics-source';
import { openDatabase } from '@/lib/store/database';

/*
 * Firing Alertmanager alerts whose resolution never arrived must not hold the MAX_ALERT_INSTANCES slots for
 * good: past their endsAt, or not sent again for ALERTMANAGER_STALE_MS, they are resolved (and droppable).
 */

const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

function setup(limits: { maxInstances: number; alertmanagerStaleMs?: number }) {
  const clock = { now: Date.UTC(2026, 11, 1) };
  const store = new AlertStore(openDatabase(':memory:').db, () => clock.now, limits);
  const service = new AlertService({
    store,
    source: {} as MetricsSource,
    notify: createNotifier(),
    now: () => clock.now,
  });
  const receive = (fingerprints: string[], endsAt = '0001-01-01T00:00:00Z') =>
    service.receiveAlertmanager(
      parseAlertmanagerPayload({
        version: '4',
        alerts: fingerprints.map((f) => ({
          status: 'firing',
          labels: { alertname: f },
          startsAt: iso(clock.now - 60_000),
          endsAt,
          fingerprint: f,
        })),
      }),
    );
  return { clock, store, receive };
}

describe('stale firing Alertmanager alerts', () => {
  it('are resolved after ALERTMANAGER_STALE_MS without a resend, so new alerts are not dropped', () => {
    const { clock, store, receive } = setup({ maxInstances: 10, alertmanagerStaleMs: 12 * HOUR });
    const old = Array.from({ length: 10 }, (_, i) => `old${i}`);
    expect(receive(old)).toEqual({ received: 10, dropped: 0 });
    // still fresh: the cap holds
    clock.now += HOUR;
    expect(receive(['new0'])).toEqual({ received: 0, dropped: 1 });
    // one of them is sent again (Alertmanager's repeat_interval), the others never
    clock.now += 11 * HOUR;
    receive(['old0']);
    clock.now += 2 * HOUR;
    expect(receive(['new1'])).toEqual({ received: 1, dropped: 0 });
    expect(store.instance('alertmanager:new1')?.state).toBe('firing');
    expect(store.instance('alertmanager:old0')?.state).toBe('firing');
    expect(store.firingCount()).toBe(2);
    expect(store.history(1000).filter((h) => h.state === 'resolved')).toHaveLength(9);
  });

  it('are resolved by the periodic prune as well', () => {
    const { clock, store, receive } = setup({ maxInstances: 10, alertmanagerStaleMs: HOUR });
    receive(['a', 'b']);
    clock.now += 2 * HOUR;
    store.prune(0);
    expect(store.firingCount()).toBe(0);
    expect(store.instance('alertmanager:a')).toMatchObject({ state: 'resolved', resolvedAt: clock.now });
  });

  it('a firing alert already past its endsAt is taken as resolved', () => {
    const { clock, store, receive } = setup({ maxInstances: 10 });
    receive(['late'], iso(clock.now - HOUR));
    expect(store.instance('alertmanager:late')?.state).toBe('resolved');
    receive(['live'], iso(clock.now + 4 * 60_000));
    expect(store.instance('alertmanager:live')?.state).toBe('firing');
  });
});
