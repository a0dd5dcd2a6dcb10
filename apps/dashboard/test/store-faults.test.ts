import { afterEach, describe, expect, it } from 'vitest';
import { EmbeddedSource } from '@/lib/data/embedded-source';
import { stableKey } from '@/lib/ingest/ingest-context';
import { createIngestSink } from '@/lib/ingest/ingest-sink';
import { decodeMetrics } from '@/lib/otlp/decode';
import { EmbeddedStore } from '@/lib/store/embedded-store';
import { sumRequest } from './support/otlp-json';
import { startTestServer, type TestServer, tempDir } from './support/runtime';

/*
 * Issue #22 item 4 (storage faults answered so exporters retry) and the upgrade of series keys, against real
 * SQLite files: `PRAGMA max_page_count` makes a real SQLITE_FULL, `PRAGMA query_only` a real SQLITE_READONLY
 * (the tests run as root, so file modes would not stop a write).
 */

const CALLS = 'mcp.resilience.calls';
const DAY = 86_400_000;
const ok = { 'mcp.resilience.server': 'weather', 'mcp.resilience.outcome': 'success' };
const open: EmbeddedStore[] = [];
const servers: TestServer[] = [];
afterEach(async () => {
  for (const s of open.splice(0)) s.close();
  for (const s of servers.splice(0)) await s.close();
});

function openStore(dir: string) {
  const store = new EmbeddedStore({ dataDir: dir, retentionMs: 7 * DAY, maxCalls: 1000, maxAttempts: 1000 });
  open.push(store);
  return store;
}

const json = (o: unknown) => Buffer.from(JSON.stringify(o));
const total = async (store: EmbeddedStore) => {
  const now = Date.now();
  const s = await new EmbeddedSource(store, { staleMs: 600_000 }).summary({
    from: now - DAY,
    to: now + 600_000,
    filters: {},
  });
  return s.calls.total;
};

describe('series keys of the older format', () => {
  it('are rehashed at open: the series goes on counting deltas, not its whole value again', async () => {
    const dir = tempDir();
    const first = openStore(dir);
    const t0 = Date.now(); // after the store's creation: the series is counted from its first point
    createIngestSink(first).metrics(
      decodeMetrics(
        json(sumRequest(CALLS, [{ startMs: t0, timeMs: t0 + 1000, asInt: 5, attributes: ok }])),
        'json',
      ),
    );
    // what the store kept before series keys were hashed: the identifying text itself
    const decoded = decodeMetrics(json(sumRequest(CALLS, [{ timeMs: t0, attributes: ok }])), 'json');
    const resource = decoded.resources[0]!;
    const oldKey = `${CALLS}\u0000${stableKey(resource.resource)}\u0000${resource.scopes[0]!.scope}\u0000${stableKey(
      resource.scopes[0]!.metrics[0]!.points[0]!.attributes,
    )}`;
    expect(first.db.prepare('UPDATE cumulative_state SET key = ?').run(oldKey).changes).toBe(1);
    first.close();

    const second = openStore(dir);
    const keys = second.db.prepare<[], string>('SELECT key FROM cumulative_state').pluck().all();
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(/^h:[A-Za-z0-9_-]{43}$/);
    createIngestSink(second).metrics(
      decodeMetrics(
        json(sumRequest(CALLS, [{ startMs: t0, timeMs: t0 + 2000, asInt: 8, attributes: ok }])),
        'json',
      ),
    );
    expect(await total(second)).toBe(8); // 5, then 3 more (unmigrated: a new series, 5 + 8 = 13)
  });
});

async function post(s: TestServer, body: unknown) {
  const r = await fetch(`${s.url}/v1/metrics`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return {
    status: r.status,
    retryAfter: r.headers.get('retry-after'),
    body: (await r.json()) as { message?: string },
  };
}

async function summary(s: TestServer) {
  const now = Date.now();
  const r = await fetch(`${s.url}/api/v1/summary?from=${now - DAY}&to=${now + 600_000}`);
  return { status: r.status, total: ((await r.json()) as { calls: { total: number } }).calls?.total };
}

const delta = (n: number, tool: string) =>
  sumRequest(CALLS, [{ timeMs: Date.now(), asInt: n, attributes: { ...ok, 'gen_ai.tool.name': tool } }], {
    temporality: 1,
  });

describe('a disk that refuses writes', () => {
  it('answers a full disk with 503, Retry-After and the cause; reads work; ingest resumes when space returns', async () => {
    const s = await startTestServer();
    servers.push(s);
    const db = s.runtime.store!.db;
    expect((await post(s, delta(2, 'a'))).status).toBe(200);
    const pages = db.pragma('page_count', { simple: true }) as number;
    db.pragma(`max_page_count = ${pages}`);
    // new tools: new dims and facts rows, more pages than the file may have
    let full: Awaited<ReturnType<typeof post>> | undefined;
    for (let i = 0; i < 50 && !full; i++) {
      const r = await post(
        s,
        sumRequest(
          CALLS,
          Array.from({ length: 200 }, (_, k) => ({
            timeMs: Date.now(),
            asInt: 1,
            attributes: { ...ok, 'gen_ai.tool.name': `t${i}-${k}` },
          })),
          { temporality: 1 },
        ),
      );
      if (r.status !== 200) full = r;
    }
    expect(full).toEqual({
      status: 503,
      retryAfter: '30',
      body: { code: 14, message: 'store cannot write: the disk is full (SQLITE_FULL), retry later' },
    });
    const before = await summary(s);
    expect(before.status).toBe(200);
    db.pragma('max_page_count = 1073741823');
    expect((await post(s, delta(3, 'a'))).status).toBe(200);
    expect((await summary(s)).total).toBe(before.total + 3);
  });

  it('answers a read-only database with 503 naming it, and resumes once writable', async () => {
    const s = await startTestServer();
    servers.push(s);
    const db = s.runtime.store!.db;
    expect((await post(s, delta(2, 'a'))).status).toBe(200);
    db.pragma('query_only = ON');
    const r = await post(s, delta(5, 'a'));
    expect(r).toEqual({
      status: 503,
      retryAfter: '30',
      body: {
        code: 14,
        message: 'store cannot write: the database is read-only (SQLITE_READONLY), retry later',
      },
    });
    expect(await summary(s)).toEqual({ status: 200, total: 2 });
    db.pragma('query_only = OFF');
    expect((await post(s, delta(5, 'a'))).status).toBe(200);
    expect((await summary(s)).total).toBe(7);
  });

  it('has nothing half-written after a refused write (the transaction rolled back)', async () => {
    const dir = tempDir();
    const store = openStore(dir);
    store.db.pragma('query_only = ON');
    expect(() => createIngestSink(store).metrics(decodeMetrics(json(delta(4, 'x')), 'json'))).toThrow(
      /the database is read-only/,
    );
    store.db.pragma('query_only = OFF');
    expect(await total(store)).toBe(0);
  });
});
