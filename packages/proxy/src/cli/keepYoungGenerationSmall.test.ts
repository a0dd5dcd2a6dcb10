import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { keepYoungGenerationSmall, type ProcessLike } from './keepYoungGenerationSmall.js';

const dist = join(import.meta.dirname, '..', '..', 'dist', 'cli', 'keepYoungGenerationSmall.js');

function proc(overrides: Partial<ProcessLike> = {}): ProcessLike & { execve: ReturnType<typeof vi.fn> } {
  return {
    execPath: '/usr/bin/node',
    execArgv: ['--enable-source-maps'],
    argv: ['/usr/bin/node', '/app/cli.js', 'wrap', '--', 'server'],
    env: { PATH: '/bin' },
    execve: vi.fn(() => {
      throw new Error('replaced');
    }),
    ...overrides,
  } as ProcessLike & { execve: ReturnType<typeof vi.fn> };
}

describe('keepYoungGenerationSmall', () => {
  it('replaces the process with the same node, flags, script and arguments plus a 1 MiB semi-space', () => {
    const p = proc();
    expect(() => keepYoungGenerationSmall(p)).toThrow('replaced');
    expect(p.execve).toHaveBeenCalledWith(
      '/usr/bin/node',
      [
        '/usr/bin/node',
        '--max-semi-space-size=1',
        '--enable-source-maps',
        '/app/cli.js',
        'wrap',
        '--',
        'server',
      ],
      { PATH: '/bin' },
    );
  });

  it('keeps a semi-space size the user chose, on the command line or in NODE_OPTIONS', () => {
    const flagged = proc({ execArgv: ['--max-semi-space-size', '16'] });
    expect(keepYoungGenerationSmall(flagged)).toEqual({ kind: 'set', by: 'execArgv' });
    const viaEnv = proc({ env: { NODE_OPTIONS: '--no-warnings --max_semi_space_size=0' } });
    expect(keepYoungGenerationSmall(viaEnv)).toEqual({ kind: 'set', by: 'NODE_OPTIONS' });
    expect(flagged.execve).not.toHaveBeenCalled();
    expect(viaEnv.execve).not.toHaveBeenCalled();
    const similar = proc({ env: { NODE_OPTIONS: '--max-semi-space-sizes=1' } });
    expect(() => keepYoungGenerationSmall(similar)).toThrow('replaced');
  });

  it('runs as started where the platform cannot replace a process', () => {
    expect(keepYoungGenerationSmall(proc({ execve: undefined }))).toEqual({ kind: 'unavailable' });
    const bundled = proc({ argv: ['/usr/local/bin/mcp-resilience'] });
    expect(keepYoungGenerationSmall(bundled)).toEqual({ kind: 'unavailable' });
    expect(bundled.execve).not.toHaveBeenCalled();
  });

  it('gives a real Node process a small young generation, keeping its process id and arguments', () => {
    const script = [
      `const { keepYoungGenerationSmall } = await import(${JSON.stringify(dist)});`,
      'if (!process.env.FIRST_PID) process.env.FIRST_PID = String(process.pid);',
      'keepYoungGenerationSmall();',
      "const v8 = await import('node:v8');",
      'let a = []; for (let i = 0; i < 1e6; i++) { a.push({ i }); if (a.length > 1e4) a = []; }',
      "const young = v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space');",
      'console.log(JSON.stringify({ same: process.env.FIRST_PID === String(process.pid), young: young.space_size, args: process.argv.slice(1) }));',
    ].join('\n');
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script, 'a', 'b'], {
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    const seen = JSON.parse(run.stdout) as { same: boolean; young: number; args: string[] };
    expect(seen.same).toBe(true);
    expect(seen.young).toBeLessThanOrEqual(2 * 1024 * 1024);
    expect(seen.args).toEqual(['a', 'b']);
  });
});
