import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it } from 'vitest';

const cli = join(import.meta.dirname, 'cli.ts');
const everything = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-everything/dist/index.js',
);

const start = (args: string[]) =>
  spawn(process.execPath, ['--import', 'tsx', cli, ...args], { cwd: import.meta.dirname, stdio: 'pipe' });

async function finish(child: ChildProcess) {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const [code] = await once(child, 'exit');
  return { code, stdout, stderr };
}

const writePlan = (plan: unknown) => {
  const file = join(mkdtempSync(join(tmpdir(), 'chaos-cli-')), 'plan.yaml');
  writeFileSync(file, typeof plan === 'string' ? plan : JSON.stringify(plan));
  return file;
};

describe('mcp-chaos', () => {
  it.each([
    [['serve', '--bogus'], "mcp-chaos: Unknown option '--bogus'"],
    [['serve', '--transport', 'ws'], 'mcp-chaos: --transport must be http or stdio, got "ws"'],
    [['serve', '--port', 'eighty'], 'mcp-chaos: --port must be an integer in [0, 65535], got "eighty"'],
    [['start'], 'mcp-chaos: unknown command "start"'],
    [
      ['serve', '--plan', '/nonexistent.yaml'],
      'mcp-chaos: /nonexistent.yaml: plan: cannot read the file (ENOENT)',
    ],
    [['proxy'], 'mcp-chaos: proxy needs --upstream <http URL | "command args">'],
    [
      ['proxy', '--upstream', 'http://127.0.0.1:1/mcp', '--listen', 'localhost'],
      'mcp-chaos: --listen must be',
    ],
  ])('%j exits 2 with a one-line error', async (args, message) => {
    const { code, stderr } = await finish(start(args));
    expect(code).toBe(2);
    expect(stderr).toContain(message);
    expect(stderr.trim().split('\n')).toHaveLength(1);
  });

  it('rejects a bad plan naming the field', async () => {
    const plan = writePlan('faults:\n  - kind: reset\n    probability: 2\n');
    const { code, stderr } = await finish(start(['serve', '--plan', plan]));
    expect(code).toBe(2);
    expect(stderr).toBe(
      `mcp-chaos: ${plan}: plan.faults[0].probability: must be a number in [0, 1], got 2\n`,
    );
  });

  it('serves HTTP, prints the URL once listening, and exits 0 on SIGTERM', async () => {
    const child = start(['serve', '--transport', 'http', '--port', '0', '--seed', '1']);
    const exited = finish(child);
    const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
    const url = line.match(/^mcp-chaos listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/)?.[1];
    expect(url).toBeDefined();
    const client = new Client({ name: 'chaos-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url ?? '')));
    expect((await client.callTool({ name: 'search', arguments: { query: 'x' } })).isError).toBeUndefined();
    await client.close();
    child.kill('SIGTERM');
    expect((await exited).code).toBe(0);
  });

  it('a stdio crash exits the process with the fault exit code', async () => {
    const plan = writePlan({ faults: [{ kind: 'crash', tool: 'create_ticket', exitCode: 3 }] });
    const child = start(['serve', '--transport', 'stdio', '--plan', plan]);
    const exited = finish(child);
    const send = (message: object) => child.stdin.write(`${JSON.stringify(message)}\n`);
    const lines = createInterface({ input: child.stdout });
    const clientInfo = { name: 't', version: '1' };
    send({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo },
    });
    const [initialized] = (await once(lines, 'line')) as [string];
    expect(JSON.parse(initialized)).toMatchObject({ id: 0, result: { serverInfo: { name: 'mcp-chaos' } } });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'create_ticket', arguments: { title: 't' } },
    });
    expect((await exited).code).toBe(3);
  });

  it('proxy: a busy --listen port exits 2 with a one-line error', async () => {
    const busy = createServer().listen(0, '127.0.0.1');
    await once(busy, 'listening');
    const { port } = busy.address() as AddressInfo;
    try {
      const args = ['proxy', '--upstream', 'http://127.0.0.1:1/mcp', '--listen', `127.0.0.1:${port}`];
      const { code, stderr } = await finish(start(args));
      expect(code).toBe(2);
      expect(stderr).toBe(`mcp-chaos: --listen: 127.0.0.1:${port} is already in use\n`);
    } finally {
      busy.close();
    }
  });

  it('proxy: serves a stdio upstream with the plan, logs to --log, exits 0 on SIGTERM', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chaos-cli-'));
    const plan = writePlan({ faults: [{ kind: 'invalid_params', tool: 'echo', times: 1 }] });
    const log = join(dir, 'log.jsonl');
    const upstream = `"${process.execPath}" "${everything}" stdio`;
    const child = start([
      'proxy',
      '--upstream',
      upstream,
      '--plan',
      plan,
      '--listen',
      '127.0.0.1:0',
      '--log',
      log,
    ]);
    const exited = finish(child);
    const [line] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
    const url = line.match(/^mcp-chaos proxy listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)$/)?.[1];
    expect(url).toBeDefined();
    const client = new Client({ name: 'chaos-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url ?? '')));
    const echo = { name: 'echo', arguments: { message: 'hi' } };
    expect(await client.callTool(echo)).toMatchObject({ isError: true });
    expect(await client.callTool(echo)).toEqual({ content: [{ type: 'text', text: 'Echo: hi' }] });
    await client.close();
    child.kill('SIGTERM');
    expect((await exited).code).toBe(0);
    const entries = readFileSync(log, 'utf8')
      .trim()
      .split('\n')
      .map((entry) => JSON.parse(entry));
    expect(entries.map(({ method, tool, fault, executed }) => [method, tool, fault, executed])).toEqual([
      ['initialize', undefined, null, true],
      ['tools/call', 'echo', 'invalid_params', false],
      ['tools/call', 'echo', null, true],
    ]);
  });
});
