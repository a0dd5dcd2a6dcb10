import net from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sumRequest } from './support/otlp-json';
import { testServer } from './support/runtime';

/*
 * Clients that connect and then send slowly or not at all, against the real server on 127.0.0.1: they must
 * not stop other exports, and every wait is cut off by a deadline.
 */

const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
});

/** A raw connection that sent `head` (and maybe a few body bytes); collects what the server answers. */
async function rawClient(url: string, head: string, localAddress?: string) {
  const { port } = new URL(url);
  const socket = net.connect({
    port: Number(port),
    host: '127.0.0.1',
    ...(localAddress ? { localAddress } : {}),
  });
  sockets.push(socket);
  let answer = '';
  socket.on('data', (d) => {
    answer += d.toString('latin1');
  });
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
  await new Promise<void>((resolve) => socket.write(head, () => resolve()));
  return { socket, closed, answer: () => answer };
}

const slowExport = (length: number) =>
  `POST /v1/metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{`;

/** Resolves once `n` of `clients` have closed (the server answered and closed them, or dropped them). */
function closedCount(clients: ReadonlyArray<{ closed: Promise<void> }>, n: number): Promise<void> {
  let count = 0;
  return new Promise((resolve) => {
    for (const c of clients)
      void c.closed.then(() => {
        if (++count === n) resolve();
      });
  });
}

/** A valid export to the server at `url`. */
const validExport = (url: string) =>
  fetch(`${url}/v1/metrics`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(
      sumRequest(
        'mcp.resilience.calls',
        [{ timeMs: Date.now(), asInt: 3, attributes: { outcome: 'success' } }],
        {
          temporality: 1,
        },
      ),
    ),
  });

describe('slow clients', () => {
  it('eight sockets sending headers and one body byte do not make valid exports wait or fail', async () => {
    const s = await testServer({ OTLP_MAX_CONCURRENT: '8', OTLP_BODY_TIMEOUT_MS: '3000' });
    const slow = await Promise.all(Array.from({ length: 8 }, () => rawClient(s.url, slowExport(1000))));
    // all eight are in the receiver (their headers were read), reading their bodies
    await s.served.dispatched(8);
    // Before the fix: 429 until the slow sockets closed (each held an ingest slot while its body trickled).
    const r = await validExport(s.url);
    expect(r.status).toBe(200);
    expect(await r.text()).toBe('{}');
    // answered while all eight still held their requests open (not after their deadline freed them)
    expect(slow.map((c) => c.answer())).toEqual(Array(8).fill(''));
    // Each slow body is cut off at the body deadline: 408, and the connection is closed.
    await Promise.all(slow.map((c) => c.closed));
    for (const c of slow) {
      expect(c.answer()).toMatch(/^HTTP\/1\.1 408 /);
      expect(c.answer()).toMatch(/body not received within 3000 ms/);
    }
  });

  it('a client holding back body bytes beyond the buffer budget gets 429, the budget is freed after', async () => {
    const s = await testServer({
      OTLP_MAX_BODY_BYTES: '4096',
      OTLP_MAX_BUFFERED_BYTES: '4096',
      OTLP_BODY_TIMEOUT_MS: '5000',
    });
    const hog = await rawClient(s.url, `${slowExport(4090)}${' '.repeat(3900)}`);
    // Its headers were read; the 3.9 KB sent with them are taken into the budget before any other request is
    // read (the same read of the socket, then promise turns): a 300-byte export no longer fits, the first one.
    await s.served.dispatched(1);
    const r = await validExport(s.url);
    expect(r.status).toBe(429);
    expect(r.headers.get('retry-after')).toBe('1');
    expect((await r.json()).message).toMatch(/too much export data in flight/);
    await hog.closed;
    expect(hog.answer()).toMatch(/^HTTP\/1\.1 408 /);
    expect((await validExport(s.url)).status).toBe(200);
  });

  it('slow large bodies from one client do not make a normal export from another client fail', async () => {
    // Room for two full bodies in all; one client may hold one (the default share: max(body, budget / 4)).
    const s = await testServer({
      OTLP_MAX_BODY_BYTES: '4096',
      OTLP_MAX_BUFFERED_BYTES: '8192',
      // far beyond the test: the admitted hog holds its share throughout
      OTLP_BODY_TIMEOUT_MS: '60000',
      OTLP_MIN_BODY_BYTES_PER_SEC: '0',
    });
    // Another loopback address: the hog is a different client than the exporter on 127.0.0.1.
    const hogs = await Promise.all(
      Array.from({ length: 3 }, () =>
        rawClient(s.url, `${slowExport(4090)}${' '.repeat(4000)}`, '127.0.0.2'),
      ),
    );
    // Before the fix: two hogs fill the whole budget, the third and every other export get 429 until the deadline.
    // Two hogs are refused (beyond the client's share) and closed; one holds its 4 KB.
    await closedCount(hogs, 2);
    for (let i = 0; i < 5; i++) {
      const r = await validExport(s.url);
      expect(r.status).toBe(200);
      expect(await r.text()).toBe('{}');
    }
    const refused = hogs.filter((h) => h.answer() !== '');
    expect(refused.length).toBe(2);
    // the admitted hog was still being read during the exports: they fitted beside it, not after it
    expect(hogs.filter((h) => h.answer() === '').length).toBe(1);
    for (const h of refused) {
      expect(h.answer()).toMatch(/^HTTP\/1\.1 429 /);
      expect(h.answer()).toMatch(/too much export data in flight from this client \(more than 4096 bytes\)/);
    }
  });

  it('cuts a body arriving slower than OTLP_MIN_BODY_BYTES_PER_SEC with 408, long before the body deadline', async () => {
    const s = await testServer({
      OTLP_BODY_TIMEOUT_MS: '20000',
      OTLP_MIN_BODY_BYTES_PER_SEC: '1000',
      OTLP_BODY_RATE_WINDOW_MS: '300',
    });
    const started = Date.now();
    const c = await rawClient(s.url, slowExport(1000));
    // a few bytes, far below 300 bytes per 300 ms window
    const trickle = setInterval(() => c.socket.write(' '), 50);
    try {
      await c.closed;
    } finally {
      clearInterval(trickle);
    }
    expect(Date.now() - started).toBeLessThan(5000);
    expect(c.answer()).toMatch(/^HTTP\/1\.1 408 /);
    expect(c.answer()).toMatch(/body arriving slower than 1000 bytes\/s \(over 300 ms\)/);
    // a normal export is not cut (its body arrives at once)
    expect((await validExport(s.url)).status).toBe(200);
  });

  it('closes a connection whose headers never finish (HTTP_HEADERS_TIMEOUT_MS)', async () => {
    const s = await testServer({ HTTP_HEADERS_TIMEOUT_MS: '300', HTTP_REQUEST_TIMEOUT_MS: '600' });
    const c = await rawClient(s.url, 'POST /v1/metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: 1');
    await c.closed;
    expect(c.answer()).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('closes an idle keep-alive connection after HTTP_KEEP_ALIVE_TIMEOUT_MS', async () => {
    const s = await testServer({ HTTP_KEEP_ALIVE_TIMEOUT_MS: '200' });
    const c = await rawClient(s.url, 'GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await c.closed;
    expect(c.answer()).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('drops a client that disconnects mid-body quietly, and serves the next export', async () => {
    const s = await testServer();
    const errors = vi.spyOn(console, 'error');
    try {
      const c = await rawClient(s.url, `${slowExport(1000)}"resourceMetrics"`);
      await s.served.dispatched(1);
      c.socket.destroy();
      await c.closed;
      // the listener has finished with the cut request (whatever it logs, it has logged)
      await s.served.handled(1);
      expect((await validExport(s.url)).status).toBe(200);
      expect(errors.mock.calls.flat().join('\n')).not.toMatch(/request failed/);
    } finally {
      errors.mockRestore();
    }
  });
});
