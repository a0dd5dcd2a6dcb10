import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { SSE_MAX_BUFFERED_BYTES } from '@/lib/server/sse';
import { startTestServer, type TestServer } from './support/runtime';

/*
 * Live (SSE) connections against the real server on 127.0.0.1: a client that never reads cannot make the
 * server buffer events without end, and no connection lives for ever.
 */

const servers: TestServer[] = [];
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  for (const s of servers.splice(0)) await s.close();
});
async function server(env: Record<string, string> = {}) {
  const s = await startTestServer(env);
  servers.push(s);
  return s;
}

/** Opens `/api/live` on a raw socket; resolves once the server has admitted it. */
async function liveClient(s: TestServer, read: boolean) {
  const { port } = new URL(s.url);
  const socket = net.connect(Number(port), '127.0.0.1');
  sockets.push(socket);
  let answer = '';
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  await new Promise<void>((resolve) => socket.on('connect', () => resolve()));
  socket.write('GET /api/live HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  if (read) socket.on('data', (d) => (answer += d.toString('latin1')));
  else socket.pause();
  for (let i = 0; i < 200 && s.runtime.liveConnections.size === 0; i++)
    await new Promise((r) => setTimeout(r, 5));
  expect(s.runtime.liveConnections.size).toBe(1);
  return { socket, closed, answer: () => answer };
}

const waitFor = async (ok: () => boolean, ms: number) => {
  const until = Date.now() + ms;
  while (!ok() && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
  return ok();
};

describe('live connection bounds', () => {
  it('closes a connection whose client does not read once more than 1 MiB waits to be sent', async () => {
    expect(SSE_MAX_BUFFERED_BYTES).toBe(1024 * 1024);
    const s = await server();
    await liveClient(s, false);
    // ~64 KiB per event, 400 events: 25 MiB, far beyond what the kernel's socket buffers take
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
    expect(await waitFor(() => s.runtime.liveConnections.size === 0, 2000)).toBe(true);
  });

  it('keeps a connection whose client reads', async () => {
    const s = await server();
    const c = await liveClient(s, true);
    const changes = Array.from({ length: 1000 }, (_, i) => ({
      key: `alert-${i}-${'x'.repeat(40)}`,
      state: 'firing',
    }));
    for (let i = 0; i < 40; i++) {
      s.runtime.hub.publish({ type: 'alert', changes });
      await new Promise((r) => setTimeout(r, 2));
    }
    expect(await waitFor(() => c.answer().split('event: alert').length > 40, 5000)).toBe(true);
    expect(s.runtime.liveConnections.size).toBe(1);
  });

  it('ends every connection after SSE_MAX_LIFETIME_MS', async () => {
    const s = await server({ SSE_MAX_LIFETIME_MS: '1000' });
    const c = await liveClient(s, true);
    const t0 = Date.now();
    // the stream ends properly (its terminating chunk), the slot is freed
    expect(await waitFor(() => c.answer().endsWith('\r\n0\r\n\r\n'), 5000)).toBe(true);
    expect(c.answer()).toContain('retry: 2000');
    expect(Date.now() - t0).toBeGreaterThan(500);
    expect(s.runtime.liveConnections.size).toBe(0);
  }, 10_000);
});
