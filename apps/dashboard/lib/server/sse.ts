import type { IncomingMessage, ServerResponse } from 'node:http';
import { parsePageQuery, RANGES } from '../data/query-params';
import type { LiveEvent } from '../live/hub';
import type { Runtime } from '../runtime';

const HEARTBEAT_MS = 15_000;
const HEADLINE_MIN_INTERVAL_MS = 1_000;
/**
 * Bytes a live connection may have waiting in the server's write buffer: a client that does not read (or
 * reads slower than events come) is disconnected beyond this instead of growing the buffer without end.
 */
export const SSE_MAX_BUFFERED_BYTES = 1024 * 1024;

/**
 * `GET /api/live?range=&service=&server=&tool=`: Server-Sent Events. `breaker` events as soon as a breaker
 * changes state (pushed by the store after its commit), `headline` events (the overview's numbers for this
 * connection's window and filters) at most once a second after new data, `alert` events when alerts change.
 * Bounded: a connection with more than `SSE_MAX_BUFFERED_BYTES` unsent is destroyed, and every connection is
 * ended after `SSE_MAX_LIFETIME_MS` (EventSource reconnects by itself, `retry: 2000`).
 */
export function serveLive(req: IncomingMessage, res: ServerResponse, url: URL, rt: Runtime): void {
  const admission = rt.liveConnections.acquire(req.socket.remoteAddress ?? 'unknown');
  if (!admission.ok) {
    const body = JSON.stringify({ error: `${admission.reason}: close another dashboard tab or retry later` });
    res.writeHead(503, {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'retry-after': '10',
      'content-length': String(Buffer.byteLength(body)),
    });
    res.end(body);
    return;
  }
  const { range, query } = parsePageQuery(Object.fromEntries(url.searchParams), Date.now());
  const span = RANGES[range];
  const { server, tool } = query.filters;
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();
  // A client that does not read: its unsent bytes stay in this process; beyond the cap it is cut off.
  const write = (chunk: string) => {
    if (res.writableEnded || res.destroyed) return;
    res.write(chunk);
    if (res.writableLength > SSE_MAX_BUFFERED_BYTES) res.destroy();
  };
  write('retry: 2000\n\n');
  const send = (event: string, data: unknown) => write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);

  let lastHeadline = 0;
  let scheduled: NodeJS.Timeout | undefined;
  const headline = () => {
    scheduled = undefined;
    lastHeadline = Date.now();
    const now = Date.now();
    rt.source
      .headline({ from: now - span, to: now, filters: query.filters })
      .then((h) => send('headline', h))
      .catch(() => undefined);
  };
  const scheduleHeadline = () => {
    if (scheduled) return;
    const wait = Math.max(0, lastHeadline + HEADLINE_MIN_INTERVAL_MS - Date.now());
    scheduled = setTimeout(headline, wait);
  };
  const relevant = (b: { server: string; tool: string | null }) =>
    (server === undefined || b.server === server) &&
    (tool === undefined || b.tool === null || b.tool === tool);

  const unsubscribe = rt.hub.subscribe((e: LiveEvent) => {
    if (e.type === 'breaker') {
      const breakers = e.breakers.filter(relevant);
      const removed = e.removed.filter(relevant);
      if (breakers.length + removed.length > 0) send('breaker', { breakers, removed });
      scheduleHeadline();
    } else if (e.type === 'alert') {
      send('alert', { changes: e.changes });
    } else {
      scheduleHeadline();
    }
  });
  headline();
  const heartbeat = setInterval(() => write(': ping\n\n'), HEARTBEAT_MS);
  heartbeat.unref();
  // No connection lives for ever (the browser reconnects at once, with fresh filters and numbers).
  const lifetime = setTimeout(() => {
    if (!res.writableEnded) res.end();
  }, rt.config.limits.maxSseLifetimeMs);
  lifetime.unref();
  const close = () => {
    admission.release();
    unsubscribe();
    clearInterval(heartbeat);
    clearTimeout(lifetime);
    if (scheduled) clearTimeout(scheduled);
  };
  req.on('close', close);
  res.on('close', close);
}
