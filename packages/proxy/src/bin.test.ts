import { execFile } from 'node:child_process';
import {
  accessSync,
  constants,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const packageDir = join(import.meta.dirname, '..');
const launcher = join(packageDir, 'bin', 'mcp-resilience.js');
const run = promisify(execFile);

/** A copy of the launcher in a package of its own, with or without a built dist/cli.js. */
function installedCopy(cli?: string) {
  const dir = mkdtempSync(join(tmpdir(), 'proxy-bin-'));
  mkdirSync(join(dir, 'bin'));
  copyFileSync(launcher, join(dir, 'bin', 'mcp-resilience.js'));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  if (cli !== undefined) {
    mkdirSync(join(dir, 'dist'));
    writeFileSync(join(dir, 'dist', 'cli.js'), cli);
  }
  return join(dir, 'bin', 'mcp-resilience.js');
}

describe('the mcp-resilience command', () => {
  it('is a committed, executable file (npm links it at install time, before dist/ exists)', () => {
    const pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8'));
    expect(pkg.bin).toEqual({ 'mcp-resilience': './bin/mcp-resilience.js' });
    expect(pkg.files).toContain('bin');
    expect(() => accessSync(launcher, constants.X_OK)).not.toThrow();
  });

  it('before a build: exits 1 saying what to build', async () => {
    const error = await run(process.execPath, [installedCopy()]).catch((e) => e);
    expect(error.code).toBe(1);
    expect(error.stderr).toBe(
      'mcp-resilience: not built yet: run `npm run build` at the repository root (or `npm run build -w @mcp-resilience/proxy`) first\n',
    );
  });

  it('after a build: runs dist/cli.js with the arguments', async () => {
    const bin = installedCopy("process.stdout.write('cli ' + process.argv.slice(2).join(' ') + '\\n');\n");
    const { stdout } = await run(process.execPath, [bin, 'wrap', '--', 'node', 'server.js']);
    expect(stdout).toBe('cli wrap -- node server.js\n');
  });
});
