import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ConfigError } from '../config';
import { nearestExisting, pseudoFileSystem } from './pseudo-file-system';
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
  if (dataDir === ':memory:') return openAt(':memory:', now);
  const pseudo = pseudoFileSystem(dataDir);
  if (pseudo !== undefined) {
    const where = `cannot keep the store in '${path.resolve(dataDir)}'`;
    throw new ConfigError('DATA_DIR', `${where}: it is on ${pseudo}, which cannot hold a database`);
  }
  try {
    if (fs.existsSync(dataDir) && !fs.statSync(dataDir).isDirectory()) {
      throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    }
    makeDirectory(dataDir);
    return openAt(path.join(dataDir, 'dashboard.db'), now);
  } catch (error) {
    const why = dataDirProblem(error);
    if (why === undefined) throw error;
    throw new ConfigError('DATA_DIR', `cannot keep the store in '${path.resolve(dataDir)}': ${why}`);
  }
}

/**
 * Creates `dir` and its missing parents one at a time: a recursive `mkdirSync` can loop for ever on a file system
 * that answers ENOENT to a directory it lists (Node 24 under procfs); one level at a time, it fails at once.
 */
function makeDirectory(dir: string): void {
  const missing: string[] = [];
  const base = nearestExisting(dir);
  for (let at = path.resolve(dir); at !== base; at = path.dirname(at)) missing.unshift(at);
  for (const at of missing) {
    try {
      fs.mkdirSync(at);
    } catch (error) {
      // made meanwhile by another process: fine when it is a directory
      if ((error as { code?: unknown }).code !== 'EEXIST' || !fs.statSync(at).isDirectory()) throw error;
    }
  }
}

/** Why a data directory cannot be used, from the error's code (undefined: not a problem of the directory). */
function dataDirProblem(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return undefined;
  const known: Record<string, string> = {
    ENOTDIR: 'not a directory',
    EEXIST: 'not a directory',
    EACCES: 'permission denied',
    EPERM: 'permission denied',
    EROFS: 'read-only file system',
    ENOSPC: 'no space left on the device',
    SQLITE_CANTOPEN: 'dashboard.db cannot be opened',
    SQLITE_NOTADB: 'dashboard.db is not an SQLite database',
    SQLITE_CORRUPT: 'dashboard.db is corrupt',
    SQLITE_FULL: 'the disk is full',
  };
  const why = known[code] ?? (code.startsWith('SQLITE_READONLY') ? 'dashboard.db is read-only' : undefined);
  if (why !== undefined) return `${why} (${code})`;
  // another system or SQLite error: its code says enough
  return /^(E[A-Z]+|SQLITE_[A-Z_]+)$/.test(code) ? code : undefined;
}

function openAt(file: string, now: number): OpenedDatabase {
  const db = new Database(file);
  try {
    return prepare(db, file, now);
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Pragmas, migrations and the creation time of a newly opened database. */
function prepare(db: Db, file: string, now: number): OpenedDatabase {
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
      const step = MIGRATIONS[i]!;
      if (typeof step === 'string') db.exec(step);
      else step(db);
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
