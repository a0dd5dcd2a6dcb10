import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SSE_MAX_BUFFERED_BYTES } from '@/lib/server/sse';
import { type TestServer, testServer } from './support/runtime';

/*
 * Live (SSE) connections against the real server on 127.0.0.1: a client that never reads cannot make the
 * server buffer events without end, and no connection lives for ever.
 */

const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
});

/**
 * What a socket received: `received(ok)` resolves on the first data for which `ok()` holds, and is rejected
 * (with the last bytes received) if the connection closes first.
 */
function receivedData(socket: net.Socket, closed: Promise<void>) {
  let answer = '';
  let ended = false;
  const waiters = new Set<{ ok: () => boolean; resolve: () => void; reject: (e: Error) => void }>();
  const gone = () => new Error(`the connection closed; it had received:\n${answer.slice(-500)}`);
  socket.on('data', (d) => {
    answer += d.toString('latin1');
    for (const w of [...waiters]) {
      if (!w.ok()) continue;
      waiters.delete(w);
      w.resolve();
    }
  });
  void closed.then(() => {
    ended = true;
    for (const w of waiters) w.reject(gone());
  });
  const received = (ok: () => boolean) => {
    if (ok()) return Promise.resolve();
    if (ended) return Promise.reject(gone());
    return new Promise<void>((resolve, reject) => waiters.add({ ok, resolve, reject }));
  };
  return { received, answer: () => answer };
}

/**
 * Opens `/api/live` on a raw socket (read, or paused: a client that does not read); resolves once the server
 * has admitted it. `served.closed` resolves when the server's side of it closed (its slot released).
 */
async function liveClient(s: TestServer, read: boolean) {
  const { port } = new URL(s.url);
  const index = s.served.all.length;
  const socket = net.connect(Number(port), '127.0.0.1');
  sockets.push(socket);
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
  socket.write('GET /api/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  const data = read ? receivedData(socket, closed) : undefined;
  if (!read) socket.pause();
  // the listener admits (or refuses) a live connection in its synchronous part
  const served = (await s.served.dispatched(index + 1))[index]!;
  expect(s.runtime.liveConnections.size).toBe(1);
  return {
    socket,
    closed,
    served,
    received: (ok: () => boolean) => data!.received(ok),
    answer: () => data?.answer() ?? '',
  };
}

describe('live connection bounds', () => {
  it('closes a connection whose client does not read once more than 1 MiB waits to be sent', async () => {
    expect(SSE_MAX_BUFFERED_BYTES).toBe(1024 * 1024);
    const s = await testServer();
    const c = await liveClient(s, false);
    // 78 KB per event, 400 events: 31 MB, far beyond what the kernel's socket buffers take
    const changes = Array.from({ length: 1000 }, (_, i) => ({
      key: `alert-${i}-${'x'.repeat(40)}`,
      state: 'firing',
    }));
    let destroyed = false;
    for (let i = 0; i < 400 && !destroyed; i++) {
      s.runtime.hub.publish({ type: 'alert', changes });
      destroyed = s.runtime.liveConnections.size === 0;
      if (i % 20 === 0) await new Promise((r) => setImmediate(r));
    }
    // destroyed by the server (not by the end of the loop): its side closes, the slot is released
    await c.served.closed;
    expect(s.runtime.liveConnections.size).toBe(0);
  }, 30_000);

  it('keeps a connection whose client reads', async () => {
    const s = await testServer();
    const c = await liveClient(s, true);
    const changes = Array.from({ length: 1000 }, (_, i) => ({
      key: `alert-${i}-${'x'.repeat(40)}`,
      state: 'firing',
    }));
    const alerts = () => c.answer().split('event: alert').length - 1;
    // 40 events of 78 KB in bursts of 8 (623 KB, under the 1 MiB bound even if the kernel took none of it),
    // each burst once the client has read the one before
    for (let burst = 1; burst <= 5; burst++) {
      for (let i = 0; i < 8; i++) s.runtime.hub.publish({ type: 'alert', changes });
      await c.received(() => alerts() >= burst * 8);
    }
    expect(alerts()).toBe(40);
    expect(s.runtime.liveConnections.size).toBe(1);
    expect(c.served.res.destroyed).toBe(false);
  });

  it('ends every connection after SSE_MAX_LIFETIME_MS', async () => {
    const s = await testServer({ SSE_MAX_LIFETIME_MS: '1000' });
    // taken before the connection exists: its lifetime starts later, so a slow machine only adds to the span
    const t0 = performance.now();
    const c = await liveClient(s, true);
    // the stream ends properly (its terminating chunk), the slot is freed
    await c.received(() => c.answer().endsWith('\r\n0\r\n\r\n'));
    await c.served.closed;
    expect(c.answer()).toContain('retry: 2000');
    // not before SSE_MAX_LIFETIME_MS (timers run on whole milliseconds: 2 ms of rounding allowed)
    expect(performance.now() - t0).toBeGreaterThanOrEqual(998);
    expect(s.runtime.liveConnections.size).toBe(0);
  }, 30_000);
});
