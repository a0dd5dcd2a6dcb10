import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * `server` (a command running node) that writes `count` log notifications (`notifications/message`, data
 * `after refusal 0`, `1`...) on stdout right after the line refusing an `initialize` with -32022, in the same
 * tick: a preload (`--import`) wraps the process's `stdout.write`, the server's own code is untouched.
 */
export function writesAfterRefusal<S extends { command: string; args: readonly string[] }>(
  server: S,
  count: number,
): S & { args: string[] } {
  const dir = mkdtempSync(join(tmpdir(), 'proxy-after-refusal-'));
  const preload = join(dir, 'after-refusal.mjs');
  writeFileSync(
    preload,
    [
      'const write = process.stdout.write.bind(process.stdout);',
      'let done = false;',
      'process.stdout.write = (chunk, ...rest) => {',
      "  if (done || !String(chunk).includes('-32022')) return write(chunk, ...rest);",
      '  done = true;',
      '  let lines = String(chunk);',
      `  for (let i = 0; i < ${count}; i++) {`,
      "    const params = { _meta: { note: 'after refusal ' + i } };",
      "    lines += JSON.stringify({ jsonrpc: '2.0', method: 'notifications/tools/list_changed', params }) + '\\n';",
      '  }',
      '  return write(lines, ...rest);',
      '};',
      '',
    ].join('\n'),
  );
  return { ...server, args: ['--import', pathToFileURL(preload).href, ...server.args] };
}
