import path from 'node:path';
import {
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_RESILIENCE_ATTEMPT,
  ATTR_MCP_RESILIENCE_ATTEMPTS,
  ATTR_MCP_RESILIENCE_OUTCOME,
  ATTR_MCP_RESILIENCE_SERVER,
  SPAN_MCP_RESILIENCE_CALL,
} from '@mcp-resilience/middleware/semconv';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { EmbeddedSource, MAX_ATTEMPTS_PER_CALL } from '@/lib/data/embedded-source';
import type { CallsQuery } from '@/lib/data/types';
import { createIngestSink } from '@/lib/ingest/ingest-sink';
import { decodeTraces } from '@/lib/otlp/decode';
import { ATTEMPT_BUCKET_MS } from '@/lib/store/attempt-buckets';
import { EmbeddedStore } from '@/lib/store/embedded-store';
import { MIGRATIONS } from '@/lib/store/schema';
import { nanos } from './support/otlp-json';
import { tempDir } from './support/runtime';

/*
 * The Calls page: attempts belong to a call by trace id AND parent span id (spans of other traces naming the
 * same span id are not its attempts), at most MAX_ATTEMPTS_PER_CALL listed per call (the rest counted), and
 * the page says how many stored calls match beyond those shown.
 */

const open: EmbeddedStore[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

const hex = (n: number, len: number) => n.toString(16).padStart(len, '0');
const str = (key: string, v: string) => ({ key, value: { stringValue: v } });
const int = (key: string, v: number) => ({ key, value: { intValue: v } });

interface SpanSpec {
  trace: number;
  span: number;
  parent?: number;
  name: string;
  startMs: number;
  durationMs?: number;
  attributes: unknown[];
}

function traces(spans: readonly SpanSpec[]) {
  return {
    resourceSpans: [
      {
        resource: { attributes: [str('service.name', 'agent'), str('service.instance.id', 'i-1')] },
        scopeSpans: [
          {
            scope: { name: '@mcp-resilience/middleware' },
            spans: spans.map((s) => ({
              traceId: hex(s.trace, 32),
              spanId: hex(s.span, 16),
              ...(s.parent === undefined ? {} : { parentSpanId: hex(s.parent, 16) }),
              name: s.name,
              kind: s.parent === undefined ? 1 : 3,
              startTimeUnixNano: nanos(s.startMs),
              endTimeUnixNano: nanos(s.startMs + (s.durationMs ?? 5)),
              attributes: s.attributes,
              status: { code: 2 },
            })),
          },
        ],
      },
    ],
  };
}

const call = (trace: number, span: number, startMs: number, attempts: number): SpanSpec => ({
  trace,
  span,
  name: SPAN_MCP_RESILIENCE_CALL,
  startMs,
  attributes: [
    str(ATTR_MCP_RESILIENCE_SERVER, 'weather'),
    str(ATTR_MCP_RESILIENCE_OUTCOME, 'failure'),
    int(ATTR_MCP_RESILIENCE_ATTEMPTS, attempts),
  ],
});
const attempt = (trace: number, span: number, parent: number, n: number, startMs: number): SpanSpec => ({
  trace,
  span,
  parent,
  name: 'tools/call get',
  startMs,
  attributes: [str(ATTR_MCP_RESILIENCE_SERVER, 'weather'), int(ATTR_MCP_RESILIENCE_ATTEMPT, n)],
});

function setup(now: number, dataDir = tempDir()) {
  const store = new EmbeddedStore({
    dataDir,
    retentionMs: 7 * 86_400_000,
    maxCalls: 10_000,
    maxAttempts: 100_000,
    now: () => now,
  });
  open.push(store);
  const ingest = (spans: SpanSpec[]) =>
    createIngestSink(store).traces(decodeTraces(Buffer.from(JSON.stringify(traces(spans))), 'json'));
  return { store, source: new EmbeddedSource(store, { staleMs: 600_000 }), ingest };
}

describe('Calls page reads', () => {
  const now = Date.UTC(2026, 11, 1, 12);
  const q: CallsQuery = { from: now - 3_600_000, to: now, filters: {} };

  it('joins attempts on trace id and span id: spans of other traces naming the span id are not listed', async () => {
    const { source, ingest } = setup(now);
    const t0 = now - 60_000;
    ingest([call(1, 100, t0, 3), ...[1, 2, 3].map((n) => attempt(1, 200 + n, 100, n, t0 + n))]);
    // 2,000 attempt spans of other traces that name the same parent span id
    ingest(Array.from({ length: 2000 }, (_, i) => attempt(1000 + i, 5000 + i, 100, 1, t0 + 10)));
    const [c] = await source.recentCalls(q, { limit: 10 });
    expect(c?.attemptRows.map((a) => a.attempt)).toEqual([1, 2, 3]);
    expect(c?.attemptsOmitted).toBe(0);
  });

  it('lists at most MAX_ATTEMPTS_PER_CALL attempts of one call and counts the rest', async () => {
    const { source, ingest } = setup(now);
    const t0 = now - 60_000;
    const n = MAX_ATTEMPTS_PER_CALL + 25;
    ingest([
      call(7, 70, t0, n),
      ...Array.from({ length: n }, (_, i) => attempt(7, 700 + i, 70, i + 1, t0 + i)),
    ]);
    const [c] = await source.recentCalls(q, { limit: 10 });
    expect(c?.attemptRows).toHaveLength(MAX_ATTEMPTS_PER_CALL);
    expect(c?.attemptRows[0]?.attempt).toBe(1);
    expect(c?.attemptsOmitted).toBe(25);
  });

  it('pages the calls, newest first, and counts every match', async () => {
    const { source, ingest } = setup(now);
    ingest(Array.from({ length: 120 }, (_, i) => call(10 + i, 300 + i, now - 100_000 + i * 100, 2)));
    expect(await source.countCalls(q)).toBe(120);
    const first = await source.recentCalls(q, { limit: 50 });
    const third = await source.recentCalls(q, { limit: 50, offset: 100 });
    expect(first).toHaveLength(50);
    expect(third).toHaveLength(20);
    expect(first[0]!.startMs).toBeGreaterThan(third[0]!.startMs);
    expect(third[19]!.startMs).toBe(now - 100_000);
    expect(await source.countCalls({ ...q, filters: { server: 'elsewhere' } })).toBe(0);
  });

  it("filters by method: a latency row without a tool lists exactly its method's calls", async () => {
    const { source, ingest } = setup(now);
    const withMethod = (c: SpanSpec, method: string): SpanSpec => ({
      ...c,
      attributes: [...c.attributes, str(ATTR_MCP_METHOD_NAME, method)],
    });
    ingest([
      withMethod(call(5, 50, now - 30_000, 1), 'tools/list'),
      withMethod(call(6, 60, now - 20_000, 2), 'tools/call'),
      withMethod(call(7, 70, now - 10_000, 1), 'tools/list'),
    ]);
    const list = { ...q, filters: { server: 'weather', method: 'tools/list' } };
    expect(await source.countCalls(list)).toBe(2);
    expect((await source.recentCalls(list, { limit: 10 })).map((c) => c.method)).toEqual([
      'tools/list',
      'tools/list',
    ]);
    expect(await source.countCalls({ ...q, filters: { method: 'tools/call' } })).toBe(1);
    expect(await source.countCalls({ ...q, filters: { method: 'resources/read' } })).toBe(0);
  });

  it("finds attempts in their call's time buckets: before its start's bucket, and late in a long call", async () => {
    const { source, ingest } = setup(now);
    // the call starts 1 ms after a bucket boundary and lasts 35 s (four more buckets)
    const t0 = Math.floor((now - 120_000) / ATTEMPT_BUCKET_MS) * ATTEMPT_BUCKET_MS + 1;
    ingest([
      { ...call(3, 30, t0, 3), durationMs: 35_000 },
      attempt(3, 301, 30, 1, t0 - 2),
      attempt(3, 302, 30, 2, t0 + 17_000),
      attempt(3, 303, 30, 3, t0 + 34_990),
    ]);
    const [c] = await source.recentCalls(q, { limit: 10 });
    expect(c?.attemptRows.map((a) => a.startMs)).toEqual([t0 - 2, t0 + 17_000, t0 + 34_990]);
  });

  it('stores a re-sent export once (same spans: same start, same ids), and retention drops the attempts', async () => {
    let clock = now;
    const store = new EmbeddedStore({
      dataDir: tempDir(),
      retentionMs: 3_600_000,
      maxCalls: 10_000,
      maxAttempts: 100_000,
      now: () => clock,
    });
    open.push(store);
    const t0 = now - 60_000;
    const spans = [call(4, 40, t0, 2), attempt(4, 401, 40, 1, t0 + 1), attempt(4, 402, 40, 2, t0 + 3)];
    const body = Buffer.from(JSON.stringify(traces(spans)));
    const sink = createIngestSink(store);
    sink.traces(decodeTraces(body, 'json'));
    sink.traces(decodeTraces(body, 'json'));
    const rows = (table: string) => store.db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get();
    expect([rows('calls'), rows('attempts')]).toEqual([1, 2]);
    clock = now + 3_600_000;
    store.enforceRetention();
    expect([rows('calls'), rows('attempts')]).toEqual([0, 0]);
  });

  it('migrates a database of schema 4: its calls and attempts are kept and joined, re-sent spans still ignored', async () => {
    const dir = tempDir();
    const db = new Database(path.join(dir, 'dashboard.db'));
    for (const step of MIGRATIONS.slice(0, 4)) {
      if (typeof step === 'string') db.exec(step);
      else step(db);
    }
    db.prepare("INSERT INTO meta (key, value) VALUES ('schema_version', '4'), ('created_at', '1')").run();
    const t0 = now - 60_000;
    // what the code of schema 4 stored for a call of two attempts (the old indexes were in place)
    const spans = [call(5, 50, t0, 2), attempt(5, 501, 50, 1, t0 + 1), attempt(5, 502, 50, 2, t0 + 3)];
    db.prepare(
      `INSERT INTO calls (trace_id, span_id, service, instance, server, method, tool, operation, start_ms, duration_ms,
         outcome, attempts, error_class, error_type, wasted_retries, wasted_time_ms, message)
       VALUES (?, ?, 'agent', 'i-1', 'weather', '', '', '', ?, 5, 'failure', 2, '', '', 0, 0, '')`,
    ).run(hex(5, 32), hex(50, 16), t0);
    for (const a of spans.slice(1)) {
      db.prepare(
        `INSERT INTO attempts (trace_id, span_id, parent_span_id, name, attempt, start_ms, duration_ms, ok, error_class,
           error_type, decision, delay_ms, give_up_reason, execution, source, message)
         VALUES (?, ?, ?, 'tools/call get', ?, ?, 5, 0, '', '', '', 0, '', '', '', '')`,
      ).run(hex(5, 32), hex(a.span, 16), hex(50, 16), a.span - 500, a.startMs);
    }
    db.close();
    const { store, source, ingest } = setup(now, dir);
    const indexes = store.db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('calls', 'attempts') ORDER BY name",
      )
      .pluck()
      .all();
    expect(indexes).toEqual(['attempts_call', 'calls_start']);
    const [c] = await source.recentCalls(q, { limit: 10 });
    expect(c?.attemptRows.map((a) => a.attempt)).toEqual([1, 2]);
    // the same spans exported again (an exporter retry of what schema 4 stored): nothing new
    ingest(spans);
    const rows = (table: string) => store.db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get();
    expect([rows('calls'), rows('attempts')]).toEqual([1, 2]);
    expect(store.db.prepare('PRAGMA integrity_check').pluck().get()).toBe('ok');
  });
});
