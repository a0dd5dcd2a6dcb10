import { createResilience } from '@mcp-resilience/middleware';
import { describe, expect, it } from 'vitest';
import { createAddressPolicy } from '@/lib/alerts/address-policy';
import type { NotificationTarget } from '@/lib/alerts/alert-store';
import { createNotifier, type Notification } from '@/lib/alerts/notifier';
import { type Resolve, resolveTarget } from '@/lib/alerts/webhook-request';

/*
 * A DNS lookup that never answers (a black-holed resolver) must not hold an alert target's check or a
 * notification for ever: it is given up after the target timeout, with an error naming the host.
 */

/** A resolver that never answers (counts the lookups it was asked for). */
function hanging() {
  const calls: string[] = [];
  const resolve: Resolve = (host) => {
    calls.push(host);
    return new Promise(() => undefined);
  };
  return { resolve, calls };
}

const notification: Notification = {
  status: 'firing',
  startsAt: 0,
  entry: {
    id: 1,
    at: 0,
    key: 'k',
    source: 'rule',
    name: 'A',
    labels: {},
    state: 'firing',
    value: 0.5,
    summary: 's',
  },
};

describe('DNS lookups of alert targets are bounded', () => {
  it('gives a hanging lookup up after the timeout, naming the host', async () => {
    const { resolve, calls } = hanging();
    const t0 = Date.now();
    const r = await resolveTarget('https://hooks.example.com/x', createAddressPolicy(), resolve, 150);
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(calls).toEqual(['hooks.example.com']);
    expect(r).toEqual({
      ok: false,
      reason: 'hooks.example.com does not resolve within 150 ms (ETIMEOUT)',
      dns: 'ETIMEOUT',
    });
  });

  it('a notification to a target whose name never resolves fails within the attempt timeout', async () => {
    const { resolve } = hanging();
    const notify = createNotifier({
      resolve,
      attemptTimeoutMs: 150,
      resilience: createResilience({ maxAttempts: 1 }),
    });
    const target: NotificationTarget = {
      id: 1,
      name: 'ops',
      url: 'https://hooks.example.com/x',
      kind: 'json',
      enabled: true,
    };
    const t0 = Date.now();
    const r = await notify(target, notification);
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(r.ok).toBe(false);
  }, 5_000);
});
