import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { parseGatewayConfig } from './gateway/loadGatewayConfig.js';
import { startGateway } from './gateway/startGateway.js';
import { everything, filesystem, inspector, memory, proxyCommand } from './test-support/commands.js';
import { connectHost } from './test-support/connectHost.js';

const run = promisify(execFile);
const clients: Client[] = [];
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
});

async function inspect(args: readonly string[]): Promise<unknown> {
  const { command, args: argv, cwd } = inspector(args);
  const { stdout } = await run(command, argv, { cwd, timeout: 60_000 });
  return JSON.parse(stdout.slice(stdout.indexOf('{')));
}

const text = (result: CallToolResult) =>
  result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');

describe('real clients and servers through the proxy', () => {
  it('the MCP Inspector CLI sees through wrap the same tools as without it, and calls one', async () => {
    const ev = everything();
    const wrap = proxyCommand(['wrap', '--', ev.command, ...ev.args]);
    const [plain, wrapped] = await Promise.all([
      inspect([ev.command, ...ev.args, '--method', 'tools/list']),
      inspect([wrap.command, ...wrap.args, '--method', 'tools/list']),
    ]);
    expect(wrapped).toEqual(plain);
    expect(
      await inspect([
        wrap.command,
        ...wrap.args,
        '--method',
        'tools/call',
        '--tool-name',
        'echo',
        '--tool-arg',
        'message=hi',
      ]),
    ).toEqual({ content: [{ type: 'text', text: 'Echo: hi' }] });
  });

  it('the MCP Inspector CLI reaches a stdio server through the gateway over Streamable HTTP', async () => {
    const gateway = await startGateway({
      config: parseGatewayConfig({ mcpServers: { everything: everything() } }, 'inline'),
      port: 0,
    });
    try {
      const url = `${gateway.url}/everything/mcp`;
      const result = await inspect([
        url,
        '--transport',
        'http',
        '--method',
        'tools/call',
        '--tool-name',
        'echo',
        '--tool-arg',
        'message=gw',
      ]);
      expect(result).toEqual({ content: [{ type: 'text', text: 'Echo: gw' }] });
    } finally {
      await gateway.close();
    }
  });

  it('@modelcontextprotocol/server-memory keeps its state through wrap', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'proxy-memory-'));
    const m = memory();
    const host = await connectHost([
      'wrap',
      '--',
      'env',
      `MEMORY_FILE_PATH=${join(dir, 'memory.jsonl')}`,
      m.command,
      ...m.args,
    ]);
    clients.push(host);
    await host.callTool({
      name: 'create_entities',
      arguments: { entities: [{ name: 'proxy', entityType: 'program', observations: ['resilient'] }] },
    });
    const graph = (await host.callTool({ name: 'read_graph', arguments: {} })) as CallToolResult;
    expect(text(graph)).toContain('resilient');
  });

  it('@modelcontextprotocol/server-filesystem reads a file through wrap, and refuses a path outside', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'proxy-fs-'));
    writeFileSync(join(dir, 'hello.txt'), 'hello through the proxy');
    const f = filesystem(dir);
    const host = await connectHost(['wrap', '--', f.command, ...f.args], { roots: {} });
    clients.push(host);
    const read = (await host.callTool({
      name: 'read_text_file',
      arguments: { path: join(dir, 'hello.txt') },
    })) as CallToolResult;
    expect(text(read)).toBe('hello through the proxy');
    const outside = (await host.callTool({
      name: 'read_text_file',
      arguments: { path: '/etc/hostname' },
    })) as CallToolResult;
    expect(outside.isError).toBe(true);
  });
});
