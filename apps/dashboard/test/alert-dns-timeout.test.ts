import { createResilience } from '@mcp-resilience/middleware';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAddressPolicy } from '@/lib/alerts/address-policy';
import type { NotificationTarget } from '@/lib/alerts/alert-store';
import { createNotifier } from '@/lib/alerts/notifier';
import { type Resolve, resolveTarget } from '@/lib/alerts/webhook-request';
import { firingNotification } from './support/firing-notification';
import { watch } from './support/watch';

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

/*
 * The timers are fake (setTimeout only): the test moves time to 1 ms before the timeout (still waiting) and to
 * the timeout (given up), instead of measuring a real 150 ms against a bound on a machine of unknown load.
 */
afterEach(() => {
  vi.useRealTimers();
});

describe('DNS lookups of alert targets are bounded', () => {
  it('gives a hanging lookup up after the timeout, naming the host', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { resolve, calls } = hanging();
    const r = watch(resolveTarget('https://hooks.example.com/x', createAddressPolicy(), resolve, 150));
    await vi.advanceTimersByTimeAsync(149);
    expect(r.done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(r.done).toBe(true);
    expect(calls).toEqual(['hooks.example.com']);
    expect(r.value).toEqual({
      ok: false,
      reason: 'hooks.example.com does not resolve within 150 ms (ETIMEOUT)',
      dns: 'ETIMEOUT',
    });
  });

  it('a notification to a target whose name never resolves fails within the attempt timeout', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
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
    const r = watch(notify(target, firingNotification));
    await vi.advanceTimersByTimeAsync(149);
    expect(r.done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(r.done).toBe(true);
    expect(r.value?.ok).toBe(false);
  }, 5_000);
});
