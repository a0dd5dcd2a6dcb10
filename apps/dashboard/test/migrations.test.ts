import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { EmbeddedSource } from '@/lib/data/embedded-source';
import type { TimeQuery } from '@/lib/data/types';
import { createIngestSink } from '@/lib/ingest/ingest-sink';
import { decodeMetrics, decodeTraces } from '@/lib/otlp/decode';
import { EmbeddedStore } from '@/lib/store/embedded-store';
import { MIGRATIONS } from '@/lib/store/schema';
import { runCanary } from './support/canary-workload';
import { createCapture, serialize } from './support/otel';
import { tempDir } from './support/runtime';

/*
 * `fixtures/schema-3.sql` is a database written by the code of schema 3 (two exports of the canary workload:
 * variants in `dims.extra`, buckets as `lower~le\u0001variant`, the shadow's `class/type` in `dims.outcome`,
 * `shadow_examples` made outside the migrations), and `schema-3.expected.json` what that code read from it.
 * Opened by today's store, the database is migrated and must read the same.
 */

const FIXTURES = path.join(import.meta.dirname, 'fixtures');
const expected = JSON.parse(
  fs.readFileSync(path.join(FIXTURES, 'schema-3.expected.json'), 'utf8'),
  (_k, v) => (v === 'Infinity' ? Number.POSITIVE_INFINITY : v),
);

const open: EmbeddedStore[] = [];
afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

function openStore(dataDir: string, now: number) {
  const store = new EmbeddedStore({
    dataDir,
    retentionMs: 7 * 86_400_000,
    maxCalls: 5000,
    maxAttempts: 20_000,
    now: () => now,
  });
  open.push(store);
  return { store, source: new EmbeddedSource(store, { staleMs: 600_000 }) };
}

function schema3Database(): string {
  const dir = tempDir();
  const db = new Database(path.join(dir, 'dashboard.db'));
  db.transaction(() => db.exec(fs.readFileSync(path.join(FIXTURES, 'schema-3.sql'), 'utf8')))();
  db.close();
  return dir;
}

const columns = (store: EmbeddedStore, table: string) =>
  (store.db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>).map((c) => c.name);

describe('migration 4: real columns for experiment labels', () => {
  it('reads a database of schema 3 after migration as the code of schema 3 read it', async () => {
    const now = expected.now as number;
    const { store, source } = openStore(schema3Database(), now);
    expect(store.db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").pluck().get()).toBe(
      String(MIGRATIONS.length),
    );
    expect(columns(store, 'dims')).toEqual(
      expect.arrayContaining(['variant', 'bucket_lower', 'bucket_le', 'shadow_class', 'shadow_type']),
    );
    const q = { from: now - 3_600_000, to: now + 60_000, filters: {} };
    // Schema 3's code had no `avoided` per variant (repeats answered from a variant's cache): compared without it.
    const { variants, ...data } = await source.experimentData(q);
    expect({ ...data, variants: variants.map(({ avoided: _, ...v }) => v) }).toEqual(expected.experimentData);
    // Nor did its latency rows carry their method (each row here is one tool's, so the rows are the same).
    const latency = async (query: TimeQuery) =>
      (await source.latency(query)).map(({ method: _, ...row }) => row);
    expect(await latency(q)).toEqual(expected.latency);
    const candidate = { ...q, filters: { variant: 'candidate' } };
    expect(await source.summary(candidate)).toEqual(expected.candidateSummary);
    expect(await latency(candidate)).toEqual(expected.candidateLatency);
    expect(await source.dimensions(q)).toEqual(expected.dimensions);
    // nothing is packed any more: no variant in `extra`, no shadow class in `outcome`
    const packed = store.db
      .prepare(
        "SELECT COUNT(*) FROM dims WHERE extra LIKE '%~%' OR extra IN ('control', 'candidate') OR outcome LIKE '%/%'",
      )
      .pluck()
      .get();
    expect(packed).toBe(0);
    expect(store.db.prepare('PRAGMA integrity_check').pluck().get()).toBe('ok');
  });

  it('keeps ingesting into a migrated database: its label sets are found, not duplicated', async () => {
    const now = Date.now();
    const { store, source } = openStore(schema3Database(), now);
    const plainSets = () => store.db.prepare("SELECT COUNT(*) FROM dims WHERE bucket_le = ''").pluck().get();
    const before = plainSets();
    const capture = createCapture({ 'service.name': 'agent', 'service.instance.id': 'a1' });
    await runCanary(capture.recorder, 300, { seed: 11 });
    createIngestSink(store).metrics(
      decodeMetrics(serialize.metricsProto(await capture.metrics()), 'protobuf'),
    );
    createIngestSink(store).traces(decodeTraces(serialize.tracesProto(capture.spans()), 'protobuf'));
    const q = { from: now - 3_600_000, to: now + 60_000, filters: {} };
    const data = await source.experimentData(q);
    expect(data.variants.map((v) => v.variant)).toEqual(['candidate', 'control']);
    expect(data.disagreements.length).toBeGreaterThan(0);
    // the fixture's first export ran the same seeded calls: the same label sets (bucket sets aside: timing)
    expect(plainSets()).toBe(before);
  });

  it('creates every table and index in the numbered migrations (none at store or source start)', () => {
    const { store } = openStore(tempDir(), Date.now());
    new EmbeddedSource(store, { staleMs: 600_000 });
    const fresh = new Database(':memory:');
    for (const step of MIGRATIONS) {
      if (typeof step === 'string') fresh.exec(step);
      else step(fresh);
    }
    const names = (db: Database.Database) =>
      db
        .prepare("SELECT type, name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name")
        .all();
    expect(names(store.db)).toEqual(names(fresh));
    fresh.close();
  });
});
