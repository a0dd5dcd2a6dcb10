import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createAddressPolicy } from '@/lib/alerts/address-policy';
import { AlertService } from '@/lib/alerts/alert-service';
import { AlertStore, maskUrl } from '@/lib/alerts/alert-store';
import { PayloadError, parseAlertmanagerPayload } from '@/lib/alerts/alertmanager';
import { createNotifier, notificationBody } from '@/lib/alerts/notifier';
import { BUILT_IN_RULE, validateRule } from '@/lib/alerts/rule';
import { step } from '@/lib/alerts/state-machine';
import type { MetricsSource } from '@/lib/data/metrics-source';
import type { RetryTotals, TimeQuery } from '@/lib/data/types';
import { openDatabase } from '@/lib/store/database';

const rule = { forMs: 300_000, keepFiringForMs: 0 };
/** The test webhooks listen on 127.0.0.1: allowed explicitly, as ALERT_TARGET_ALLOWED_NETWORKS would. */
const loopbackAllowed = createAddressPolicy(['127.0.0.1/32']);

describe('alert state machine', () => {
  it('goes pending, then firing after `for`, then resolved', () => {
    let s = step({ state: 'inactive' }, true, 0, rule);
    expect(s.next.state).toBe('pending');
    expect(s.transitions).toEqual(['pending']);
    s = step(s.next, true, 200_000, rule);
    expect(s.next.state).toBe('pending');
    s = step(s.next, true, 300_000, rule);
    expect(s).toMatchObject({
      next: { state: 'firing', activeAt: 0, firedAt: 300_000 },
      transitions: ['firing'],
    });
    s = step(s.next, false, 315_000, rule);
    expect(s).toMatchObject({ next: { state: 'inactive' }, transitions: ['resolved'] });
  });

  it('clears a pending alert whose condition stops holding, without firing', () => {
    const s = step(step({ state: 'inactive' }, true, 0, rule).next, false, 15_000, rule);
    expect(s).toEqual({ next: { state: 'inactive' }, transitions: ['cleared'] });
  });

  it('fires at once with for = 0, and keeps firing for keepFiringFor', () => {
    const r = { forMs: 0, keepFiringForMs: 60_000 };
    let s = step({ state: 'inactive' }, true, 0, r);
    expect(s.transitions).toEqual(['pending', 'firing']);
    s = step(s.next, false, 30_000, r);
    expect(s.next.state).toBe('firing');
    s = step(s.next, false, 61_000, r);
    expect(s.transitions).toEqual(['resolved']);
  });
});

describe('validateRule', () => {
  it('merges valid edits and names the bad field', () => {
    expect(validateRule(BUILT_IN_RULE, { threshold: '0.9', forMs: 0 })).toMatchObject({
      threshold: 0.9,
      forMs: 0,
    });
    expect(() => validateRule(BUILT_IN_RULE, { threshold: 2 })).toThrow(/threshold/);
    expect(() => validateRule(BUILT_IN_RULE, { minRetries: 1.5 })).toThrow(/minRetries must be an integer/);
    expect(() => validateRule(BUILT_IN_RULE, { shortWindowMs: 7_200_000 })).toThrow(/shortWindowMs/);
    expect(() => validateRule(BUILT_IN_RULE, { severity: 'page' })).toThrow(/severity/);
  });
});

function fakeSource(data: { long: RetryTotals[]; short: RetryTotals[] }): MetricsSource {
  return {
    retryTotals: async (q: TimeQuery) => (q.to - q.from > 600_000 ? data.long : data.short),
    // no data start known: the summaries name the whole window
    dataStartByServer: async () => new Map(),
    experimentData: async () => ({
      from: 0,
      to: 0,
      variants: [],
      errors: [],
      disagreements: [],
      examples: [],
    }),
  } as unknown as MetricsSource;
}

const servers: http.Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    s.close();
  }
});

async function webhookServer(answers: number[]) {
  const received: Array<{ body: unknown }> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      received.push({ body: JSON.parse(body) });
      const status = answers.shift() ?? 200;
      res.writeHead(status, status === 429 ? { 'retry-after': '0' } : {});
      res.end();
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook/SECRET`, received };
}

describe('AlertService', () => {
  it('evaluates the built-in rule per server: pending → firing → resolved, with history and notifications', async () => {
    let now = 1_000_000_000;
    const store = new AlertStore(openDatabase(':memory:').db, () => now);
    const data = {
      long: [
        { server: 'weather', successful: 10, total: 30 },
        { server: 'fine', successful: 29, total: 30 },
        { server: 'rare', successful: 0, total: 5 },
      ],
      short: [
        { server: 'weather', successful: 2, total: 6 },
        { server: 'fine', successful: 6, total: 6 },
        { server: 'rare', successful: 0, total: 2 },
      ],
    };
    const hook = await webhookServer([503, 200, 200]);
    store.addTarget({ name: 'ops', url: hook.url, kind: 'json' });
    const changes: string[] = [];
    const service = new AlertService({
      store,
      source: fakeSource(data),
      notify: createNotifier({ attemptTimeoutMs: 2000, policy: loopbackAllowed }),
      now: () => now,
      onChange: (c) => changes.push(...c.map((x) => `${x.key}:${x.state}`)),
    });
    await service.evaluate();
    expect(store.instances().map((i) => [i.labels.mcp_resilience_server, i.state])).toEqual([
      ['weather', 'pending'],
    ]);
    now += 300_000;
    await service.evaluate();
    expect(store.firing().map((i) => i.labels.mcp_resilience_server)).toEqual(['weather']);
    expect(store.firing()[0]!.summary).toMatch(/33\.3%/);
    await service.idle();
    expect(hook.received).toHaveLength(2); // 503 then retried
    expect(hook.received[0]!.body).toMatchObject({
      status: 'firing',
      alert: { labels: { mcp_resilience_server: 'weather' } },
    });
    expect(store.deliveries()[0]).toMatchObject({ ok: true, attempts: 2 });
    expect(store.deliveries()[0]!.target).not.toContain('SECRET');
    data.long[0] = { server: 'weather', successful: 29, total: 30 };
    data.short[0] = { server: 'weather', successful: 6, total: 6 };
    now += 15_000;
    await service.evaluate();
    await service.idle();
    expect(store.firing()).toHaveLength(0);
    expect(store.history().map((h) => h.state)).toEqual(['resolved', 'firing', 'pending']);
    expect(hook.received.at(-1)!.body).toMatchObject({ status: 'resolved' });
    expect(changes).toContain('retry-efficiency{mcp_resilience_server="weather"}:resolved');
  });

  it('does not retry a webhook that answers 400, and records the failure', async () => {
    const hook = await webhookServer([400]);
    const notify = createNotifier({ policy: loopbackAllowed });
    const entry = {
      id: 1,
      at: 0,
      key: 'k',
      source: 'rule' as const,
      name: 'A',
      labels: {},
      state: 'firing',
      value: 0.5,
      summary: 's',
    };
    const r = await notify(
      { id: 1, name: 'x', url: hook.url, kind: 'slack', enabled: true },
      { status: 'firing', entry, startsAt: 0 },
    );
    expect(r).toMatchObject({ ok: false, attempts: 1 });
    expect(r.detail).toMatch(/non_retryable/);
    expect(hook.received[0]!.body).toEqual({ text: expect.stringContaining('[FIRING] A') });
  });

  it('shows Alertmanager alerts in the same list', () => {
    let now = 5_000;
    const store = new AlertStore(openDatabase(':memory:').db, () => now);
    const service = new AlertService({
      store,
      source: fakeSource({ long: [], short: [] }),
      notify: createNotifier(),
      now: () => now,
    });
    const payload = {
      version: '4',
      status: 'firing',
      alerts: [
        {
          status: 'firing',
          labels: { alertname: 'RetryEfficiencyBelowTarget', mcp_resilience_server: 'weather' },
          annotations: { summary: 'Retry efficiency for weather is 50%' },
          startsAt: '2026-11-29T10:00:00Z',
          endsAt: '0001-01-01T00:00:00Z',
          fingerprint: 'abc',
        },
      ],
    };
    service.receiveAlertmanager(parseAlertmanagerPayload(payload));
    service.receiveAlertmanager(parseAlertmanagerPayload(payload)); // repeat: no new history
    expect(store.firing()).toMatchObject([
      { key: 'alertmanager:abc', source: 'alertmanager', name: 'RetryEfficiencyBelowTarget' },
    ]);
    now = 9_000;
    payload.alerts[0]!.status = 'resolved';
    service.receiveAlertmanager(parseAlertmanagerPayload(payload));
    expect(store.firing()).toHaveLength(0);
    expect(store.history().map((h) => h.state)).toEqual(['resolved', 'firing']);
    expect(() => parseAlertmanagerPayload({ alerts: 'x' })).toThrow(PayloadError);
    expect(() => parseAlertmanagerPayload({ alerts: [{ status: 'odd' }] })).toThrow(/alerts\[0\]\.status/);
  });

  it('masks webhook URLs and builds both payload kinds', () => {
    expect(maskUrl('https://hooks.slack.com/services/T000/B000/XXXX')).toBe('https://hooks.slack.com/…');
    const entry = {
      id: 1,
      at: 0,
      key: 'k',
      source: 'rule' as const,
      name: 'A',
      labels: { mcp_resilience_server: 'w' },
      state: 'resolved',
      value: 0.9,
      summary: 'ok',
    };
    expect(notificationBody('json', { status: 'resolved', entry, startsAt: 0 })).toMatchObject({
      status: 'resolved',
      alert: { endsAt: expect.any(String) },
    });
  });
});
