import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';

/*
 * The README's first example, run as written in a Node process of its own (against the built package, as a user
 * gets it), with one line added that prints what it found: the comments say the first call fails with a 429 and
 * `Retry-After: 2`, the second is ok, and the log knows the ticket was created whatever the client saw.
 */

const packageDir = join(import.meta.dirname, '..');
const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
// Under the repository's node_modules, so the example's bare imports resolve as in a user's project.
const cache = join(packageDir, '..', '..', 'node_modules', '.cache');
mkdirSync(cache, { recursive: true });
const dir = mkdtempSync(join(cache, 'chaos-readme-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(file: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => {
      stdout += c;
    });
    child.stderr.on('data', (c) => {
      stderr += c;
    });
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

it('runs the README example: a 429 with Retry-After, then a result', async () => {
  const code = /## Example\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  expect(code).toBeDefined();
  expect(code).toContain('// StreamableHTTPError, code 429, Retry-After: 2');
  const file = join(dir, 'example.mjs');
  const report =
    'console.log(JSON.stringify({ error: error?.constructor?.name, code: error?.code, message: String(error?.message), isError: result.isError ?? false, created }));';
  writeFileSync(file, `${code}\n${report}\n`);
  const r = await run(file);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const seen = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}');
  expect(seen.error).toBe('StreamableHTTPError');
  expect(seen.code).toBe(429);
  expect(seen.isError).toBe(false);
  expect(seen.message).toContain('"retryAfter":2');
  // the ticket call ran once, whether its answer came back or the socket was reset after it ran
  expect(seen.created).toBe(1);
});
