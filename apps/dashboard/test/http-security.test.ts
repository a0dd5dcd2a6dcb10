import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { type TestServer, testServer } from './support/runtime';

/* The dashboard's HTTP edge against hostile requests, on a real server bound to 127.0.0.1. */

const open: http.ClientRequest[] = [];
afterEach(async () => {
  for (const r of open.splice(0)) r.destroy();
});

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A raw request: any path (not normalised), any Host, from any loopback source address. */
function request(
  s: TestServer,
  options: { method?: string; path: string; headers?: Record<string, string>; body?: string; from?: string },
): Promise<Answer> {
  const { port } = new URL(s.url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: Number(port),
        method: options.method ?? 'GET',
        path: options.path,
        headers: options.headers,
        localAddress: options.from,
        agent: false,
      },
      (res) => {
        let body = '';
        res.on('data', (c) => {
          body += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** Opens a live (SSE) stream and resolves with its status once the headers arrive (the stream stays open). */
function live(s: TestServer, from: string): Promise<{ status: number; body: () => string }> {
  const { port } = new URL(s.url);
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: '127.0.0.1', port: Number(port), path: '/api/live', localAddress: from, agent: false },
      (res) => {
        let body = '';
        res.on('data', (c) => {
          body += c;
        });
        resolve({ status: res.statusCode ?? 0, body: () => body });
      },
    );
    req.on('error', reject);
    open.push(req);
  });
}

const alerts = JSON.stringify({
  alerts: [{ status: 'firing', labels: { alertname: 'X' }, fingerprint: 'f1' }],
});

describe('Host check (DNS rebinding)', () => {
  it('refuses a rebinding Host/Origin pair, for server actions and reads alike', async () => {
    const s = await testServer();
    const { port } = new URL(s.url);
    const action = await request(s, {
      method: 'POST',
      path: '/alerts',
      headers: {
        host: `rebind.attacker.example:${port}`,
        origin: `http://rebind.attacker.example:${port}`,
        'next-action': 'abc',
        'content-type': 'text/plain;charset=UTF-8',
      },
      body: '[]',
    });
    expect(action.status).toBe(403);
    expect(JSON.parse(action.body).error).toMatch(
      /Host 'rebind\.attacker\.example' is not this dashboard's: set PUBLIC_URL .* or add the name to ALLOWED_HOSTS/,
    );
    const read = await request(s, { path: '/api/v1/summary', headers: { host: 'rebind.attacker.example' } });
    expect(read.status).toBe(403);
    // An OTLP export without a token is refused too (a rebinding page could inject telemetry).
    const otlp = await request(s, {
      method: 'POST',
      path: '/v1/metrics',
      headers: { host: 'rebind.attacker.example', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(otlp.status).toBe(403);
  });

  it('accepts IP literals, localhost, single-label names, PUBLIC_URL and ALLOWED_HOSTS', async () => {
    const s = await testServer({
      PUBLIC_URL: 'https://dash.example.com/',
      ALLOWED_HOSTS: 'metrics.internal.example',
    });
    for (const host of [
      '127.0.0.1:3000',
      '[::1]:3000',
      '192.168.1.20',
      'localhost:3000',
      'dashboard:3000',
      'dash.example.com',
      'DASH.example.com:443',
      'metrics.internal.example',
    ]) {
      expect((await request(s, { path: '/api/v1/summary', headers: { host } })).status, host).toBe(200);
    }
    expect(
      (await request(s, { path: '/api/v1/summary', headers: { host: 'evil.example.com' } })).status,
    ).toBe(403);
    expect(
      (
        await request(s, {
          path: '/api/v1/summary',
          headers: { host: '127.0.0.1', 'x-forwarded-host': 'evil.example.com' },
        })
      ).status,
    ).toBe(403);
  });

  it('lets machine endpoints carrying the ingest token through whatever their Host', async () => {
    const s = await testServer({ INGEST_TOKEN: 'ingest' });
    const r = await request(s, {
      method: 'POST',
      path: '/v1/metrics',
      headers: {
        host: 'collector.corp.example',
        'content-type': 'application/json',
        authorization: 'Bearer ingest',
      },
      body: '{}',
    });
    expect(r.status).toBe(200);
  });
});

describe('Alertmanager webhook', () => {
  it('requires application/json (a cross-site text/plain POST is refused)', async () => {
    const s = await testServer();
    const r = await request(s, {
      method: 'POST',
      path: '/api/alerts/webhook',
      headers: { 'content-type': 'text/plain' },
      body: alerts,
    });
    expect(r.status).toBe(415);
    expect(s.runtime.alertStore.instances()).toHaveLength(0);
  });

  it('requires the ingest token whenever INGEST_TOKEN is set, even without DASHBOARD_TOKEN', async () => {
    const s = await testServer({ INGEST_TOKEN: 'ingest' });
    const post = (headers: Record<string, string>) =>
      request(s, {
        method: 'POST',
        path: '/api/alerts/webhook',
        headers: { 'content-type': 'application/json', ...headers },
        body: alerts,
      });
    const none = await post({});
    expect(none.status).toBe(401);
    expect(JSON.parse(none.body).error).toMatch(/INGEST_TOKEN/);
    expect((await post({ authorization: 'Bearer wrong' })).status).toBe(401);
    const ok = await post({ authorization: 'Bearer ingest' });
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toEqual({ received: 1, dropped: 0 });
  });

  it('refuses more alerts than MAX_ALERT_INSTANCES, counting what it dropped', async () => {
    const s = await testServer({ MAX_ALERT_INSTANCES: '10' });
    const many = JSON.stringify({
      alerts: Array.from({ length: 25 }, (_, i) => ({ status: 'firing', labels: { alertname: `A${i}` } })),
    });
    const r = await request(s, {
      method: 'POST',
      path: '/api/alerts/webhook',
      headers: { 'content-type': 'application/json' },
      body: many,
    });
    expect(JSON.parse(r.body)).toEqual({ received: 10, dropped: 15 });
    expect(s.runtime.alertStore.firingCount()).toBe(10);
    const tooMany = JSON.stringify({ alerts: Array.from({ length: 1001 }, () => ({ status: 'firing' })) });
    const big = await request(s, {
      method: 'POST',
      path: '/api/alerts/webhook',
      headers: { 'content-type': 'application/json' },
      body: tooMany,
    });
    expect(big.status).toBe(400);
    expect(JSON.parse(big.body)).toMatchObject({
      field: 'alerts',
      error: 'more than 1000 alerts in one request',
    });
  });
});

describe('live connections', () => {
  it('caps SSE connections per client and in all, with a clear 503, and frees a slot on close', async () => {
    const s = await testServer({ SSE_MAX_CONNECTIONS: '3', SSE_MAX_PER_CLIENT: '2' });
    expect((await live(s, '127.0.0.1')).status).toBe(200);
    expect((await live(s, '127.0.0.1')).status).toBe(200);
    const third = await request(s, { path: '/api/live', from: '127.0.0.1' });
    expect(third.status).toBe(503);
    expect(third.headers['retry-after']).toBe('10');
    expect(JSON.parse(third.body).error).toMatch(
      /too many live connections from 127\.0\.0\.1 \(2, SSE_MAX_PER_CLIENT\)/,
    );
    expect((await live(s, '127.0.0.2')).status).toBe(200);
    const fourth = await request(s, { path: '/api/live', from: '127.0.0.3' });
    expect(fourth.status).toBe(503);
    expect(JSON.parse(fourth.body).error).toMatch(/too many live connections \(3, SSE_MAX_CONNECTIONS\)/);
    expect(s.runtime.liveConnections.size).toBe(3);
    // the first stream closes: once the server's side of it closed, its slot is free
    const first = open.shift()!;
    const served = s.served.all.find((r) => r.req.socket.remotePort === first.socket?.localPort);
    expect(served?.req.url).toBe('/api/live');
    first.destroy();
    await served!.closed;
    expect(s.runtime.liveConnections.size).toBe(2);
    expect((await live(s, '127.0.0.3')).status).toBe(200);
  });
});

describe('?token= login redirect', () => {
  it.each([
    ['/.//evil.example/x?token=tok', '/evil.example/x'],
    ['/a/..//evil.example?token=tok&range=1h', '/evil.example?range=1h'],
    ['/%2e//evil.example?token=tok', '/evil.example'],
    ['/./\\evil.example?token=tok', '/evil.example'],
    ['http://evil.example/x?token=tok', '/x'], // absolute-form request target
    ['/calls?token=tok&server=a', '/calls?server=a'],
  ])('redirects %s to the same-origin path %s', async (path, location) => {
    const s = await testServer({ DASHBOARD_TOKEN: 'tok' });
    const r = await request(s, { path });
    expect(r.status).toBe(303);
    expect(r.headers.location).toBe(location);
    expect(r.headers['set-cookie']?.[0]).toMatch(/^mcpr_session=/);
  });
});
