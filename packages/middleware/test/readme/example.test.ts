import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';

/*
 * The README's first example, run as written (its import pointed at the built package, its URL at a local API
 * answering 400 "Invalid city") in a Node process of its own: it must print the classification its comment
 * shows, after one attempt.
 */

const PACKAGE = fileURLToPath(new URL('../..', import.meta.url));
const readme = readFileSync(path.join(PACKAGE, 'README.md'), 'utf8');

/** The first ```ts block after `## Example`. */
function example(): string {
  const section = readme.slice(readme.indexOf('\n## Example\n'));
  const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (code === undefined) throw new Error('no ts block under ## Example');
  return code;
}

let api: http.Server;
let requests = 0;

beforeAll(async () => {
  api = http.createServer((_, res) => {
    requests++;
    res.writeHead(400, { 'content-type': 'text/plain' }).end('Invalid city');
  });
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
});

afterAll(() => new Promise<void>((resolve) => api.close(() => resolve())));

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

it('runs the README example and prints the classification its comment shows', async () => {
  const code = example();
  const url = 'https://api.example.com/forecast?city=Paris';
  expect(code).toContain(url);
  expect(code).toContain("from '@mcp-resilience/middleware'");
  const { port } = api.address() as AddressInfo;
  const built = pathToFileURL(path.join(PACKAGE, 'dist/index.js')).href;
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'readme-example-')), 'example.mjs');
  writeFileSync(
    file,
    code
      .replace(url, `http://127.0.0.1:${port}/forecast?city=Paris`)
      .replace("from '@mcp-resilience/middleware'", `from '${built}'`),
  );
  const r = await run(file);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  // the comment: `// { class: 'non_retryable', type: 'invalid_request', ..., source: 'http.status', ... }`
  const comment = /\/\/ (\{ class: .*\})/.exec(code)?.[1] ?? '';
  const shown = [...comment.matchAll(/(\w+): ('[^']*')/g)].map((m) => `${m[1]}: ${m[2]}`);
  expect(shown.length).toBeGreaterThanOrEqual(4);
  for (const pair of shown) expect(r.stdout, pair).toContain(pair);
  expect(r.stdout).toMatch(/\} 1 non_retryable Error: Invalid city/);
  expect(requests).toBe(1);
});
