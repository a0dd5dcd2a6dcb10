import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError } from '@/lib/config';
import { openDatabase } from '@/lib/store/database';
import { pseudoFileSystem } from '@/lib/store/pseudo-file-system';
import { tempDir } from './support/runtime';

/*
 * Issue #22 item 4: a DATA_DIR the store cannot use is one line naming the variable and the path, a non-zero
 * exit and no stack trace (the tests run as root: a file where the directory should be, or below a file).
 */

const APP = path.resolve(import.meta.dirname, '..');
const TSX = path.resolve(APP, '../../node_modules/.bin/tsx');

/** Servers still running when their test ends (one that hangs at start) are stopped, not left behind. */
const running = new Set<ReturnType<typeof spawn>>();
afterEach(() => {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
});

function startServer(
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(TSX, ['server.ts'], {
      cwd: APP,
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', NEXT_TELEMETRY_DISABLED: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    running.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    child.once('error', reject);
    child.once('exit', (code) => {
      running.delete(child);
      resolve({ code, stderr, stdout });
    });
  });
}

describe('a DATA_DIR the store cannot use', () => {
  it('is a ConfigError naming DATA_DIR, the path and the cause', () => {
    const file = path.join(tempDir(), 'a-file');
    fs.writeFileSync(file, 'x');
    expect(() => openDatabase(file)).toThrow(ConfigError);
    expect(() => openDatabase(file)).toThrow(
      `DATA_DIR: cannot keep the store in '${file}': not a directory (ENOTDIR)`,
    );
    expect(() => openDatabase(path.join(file, 'below'))).toThrow(
      /^DATA_DIR: cannot keep the store in '.*\/a-file\/below': not a directory \(ENOTDIR\)$/,
    );
    const dir = tempDir();
    fs.writeFileSync(
      path.join(dir, 'dashboard.db'),
      'not a database, just text long enough to be read as a header',
    );
    expect(() => openDatabase(dir)).toThrow(/dashboard\.db is not an SQLite database \(SQLITE_NOTADB\)$/);
  });

  it('stops the server with one line on stderr and exit code 2', async () => {
    const file = path.join(tempDir(), 'a-file');
    fs.writeFileSync(file, 'x');
    const r = await startServer({ DATA_DIR: file });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      `[dashboard] invalid configuration: DATA_DIR: cannot keep the store in '${file}': not a directory (ENOTDIR)`,
    ]);
    expect(r.stderr).not.toMatch(/\s+at /);
  }, 60_000);

  it('is refused on a pseudo file system before any mkdir (a recursive one never returns under /proc)', () => {
    expect(pseudoFileSystem('/proc/x')).toBe('procfs');
    expect(pseudoFileSystem('/proc/x/deeper/still')).toBe('procfs');
    expect(pseudoFileSystem('/sys/x')).toBe('sysfs');
    expect(pseudoFileSystem(tempDir())).toBeUndefined();
    expect(pseudoFileSystem(path.join(tempDir(), 'not', 'yet'))).toBeUndefined();
    expect(() => openDatabase('/proc/x')).toThrow(ConfigError);
    expect(() => openDatabase('/proc/x')).toThrow(
      "DATA_DIR: cannot keep the store in '/proc/x': it is on procfs, which cannot hold a database",
    );
    expect(fs.existsSync('/proc/x')).toBe(false);
  });

  it('creates the missing levels of a new DATA_DIR one at a time', () => {
    const dir = path.join(tempDir(), 'a', 'b', 'c');
    const opened = openDatabase(dir);
    expect(opened.file).toBe(path.join(dir, 'dashboard.db'));
    opened.db.close();
    expect(fs.statSync(dir).isDirectory()).toBe(true);
  });

  it('stops the server started with DATA_DIR=/proc/x with one line naming it (it hung in mkdir)', async () => {
    const r = await startServer({ DATA_DIR: '/proc/x' });
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toEqual([
      "[dashboard] invalid configuration: DATA_DIR: cannot keep the store in '/proc/x': it is on procfs, which cannot hold a database",
    ]);
  }, 60_000);
});
