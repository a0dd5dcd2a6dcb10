import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Gateway } from '../gateway/startGateway.js';
import { proxyCommand } from './commands.js';

/**
 * `mcp-resilience gateway` as a process, on a free port, for the `mcpServers` of `servers` (written to a config
 * file of its own) with the CLI's `flags` and `token`. Resolves once it listens; `stderr()` is all it wrote so far
 * (its stdio servers' stderr passes through).
 */
export async function startGatewayProcess(
  servers: Record<string, object>,
  flags: readonly string[],
  token: string,
): Promise<{ gateway: Gateway; stderr: () => string }> {
  const file = join(mkdtempSync(join(tmpdir(), 'proxy-gw-')), 'servers.json');
  writeFileSync(file, JSON.stringify({ mcpServers: servers }));
  const { command, args } = proxyCommand(['gateway', '--config', file, '--port', '0', ...flags]);
  const child = spawn(command, args, { env: { ...process.env, MCP_RESILIENCE_TOKEN: token }, stdio: 'pipe' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let said = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      const found = /listening on (\S+)/.exec(said)?.[1];
      if (found) resolve(found);
    });
    child.once('exit', (code) => reject(new Error(`the gateway exited (${code}): ${said}`)));
  });
  const gateway: Gateway = {
    url,
    sessions: () => 0,
    close: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
  return { gateway, stderr: () => said };
}
