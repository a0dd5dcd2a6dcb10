import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { MIGRATIONS } from './schema';

export type Db = Database.Database;

export interface OpenedDatabase {
  readonly db: Db;
  /** When this database was created (epoch ms): cumulative series that started before are baselined. */
  readonly createdAt: number;
  readonly file: string;
}

/**
 * Opens (creating on first start) the embedded store `<dataDir>/dashboard.db`: WAL journal, NORMAL sync
 * (durable at checkpoints, never corrupt), a short busy timeout (the caller answers 503 on SQLITE_BUSY
 * rather than blocking the event loop), then applies the migrations it lacks.
 */
export function openDatabase(dataDir: string, now = Date.now()): OpenedDatabase {
  const file = dataDir === ':memory:' ? ':memory:' : path.join(dataDir, 'dashboard.db');
  if (file !== ':memory:') fs.mkdirSync(dataDir, { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 200');
  db.pragma('temp_store = MEMORY');
  db.pragma('cache_size = -65536');
  db.exec('CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
  const get = db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?');
  const set = db.prepare(
    'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
  );
  const version = Number(get.get('schema_version')?.value ?? 0);
  for (let i = version; i < MIGRATIONS.length; i++) {
    db.transaction(() => {
      db.exec(MIGRATIONS[i]!);
      set.run('schema_version', String(i + 1));
    })();
  }
  let createdAt = Number(get.get('created_at')?.value ?? Number.NaN);
  if (!Number.isFinite(createdAt)) {
    createdAt = now;
    set.run('created_at', String(now));
  }
  return { db, createdAt, file };
}

/** True for SQLite's "try later" errors (another connection holds the lock). */
export function isBusyError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || code === 'SQLITE_BUSY_SNAPSHOT';
}
