import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, type ClientOptions } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { afterEach, describe, expect, it } from 'vitest';
import { countStarts, proxyCommand } from './test-support/commands.js';
import { waitFor } from './test-support/waitFor.js';

/**
 * Why an SDK v2 host (`@modelcontextprotocol/client` 2.4.0, `'auto'` or pinned) starts `mcp-resilience` twice per
 * connection, and what that costs the upstream. The SDK negotiates the revision on a disposable sibling process
 * spawned from the same parameters (`negotiateStdioViaSibling`: `server/discover`, then stdin ended and SIGTERM),
 * and starts the session's process once the revision is known; it does so for every server, a plain SDK v2 one
 * too. The proxy starts its upstream only when a message needs it: in the sibling, the `server/discover` it must
 * answer with the upstream's identity and capabilities; in the session, the host's first request.
 */
type Mode = NonNullable<NonNullable<ClientOptions['versionNegotiation']>['mode']>;

/** A 2025-11-25 stdio server (SDK v1) that appends `<pid> <method>` for each message it reads, and `<pid> exit`. */
const LOGGING_SERVER = `
import { appendFileSync } from 'node:fs';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
const file = process.argv[1];
const log = (what) => appendFileSync(file, process.pid + ' ' + what + '\\n');
let rest = '';
process.stdin.on('data', (chunk) => {
  const lines = (rest + chunk).split('\\n');
  rest = lines.pop();
  for (const line of lines) if (line.trim() !== '') log(JSON.parse(line).method ?? 'reply');
});
process.on('exit', () => log('exit'));
const server = new McpServer({ name: 'logging', version: '1.0.0' });
server.registerTool('hello', {}, async () => ({ content: [{ type: 'text', text: 'hi' }] }));
await server.connect(new StdioServerTransport());
`;

/** A plain SDK v2 stdio server, for the host's own count. */
const PLAIN_V2_SERVER = `
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
serveStdio(() => {
  const server = new McpServer({ name: 'plain-v2', version: '1.0.0' });
  server.registerTool('hello', {}, async () => ({ content: [{ type: 'text', text: 'hi' }] }));
  return server;
});
`;

const inline = (script: string, ...args: string[]) => ({
  command: process.execPath,
  args: ['--input-type=module', '-e', script, ...args],
});

/** The upstream's log: for each process, in start order, the methods it read, and whether it exited. */
function loggingUpstream() {
  const file = join(mkdtempSync(join(tmpdir(), 'proxy-probe-')), 'upstream.log');
  const processes = () => {
    const seen = new Map<number, { methods: string[]; exited: boolean }>();
    const lines = existsSync(file) ? readFileSync(file, 'utf8').split('\n') : [];
    for (const line of lines.filter((l) => l !== '')) {
      const [pid, what] = line.split(' ') as [string, string];
      const entry = seen.get(Number(pid)) ?? { methods: [], exited: false };
      if (what === 'exit') entry.exited = true;
      else entry.methods.push(what);
      seen.set(Number(pid), entry);
    }
    return [...seen.values()];
  };
  return { ...inline(LOGGING_SERVER, file), processes };
}

/** Distinct processes: the proxy replaces itself once (`execve`, same pid) to set its young generation. */
const distinct = (pids: number[]) => new Set(pids).size;

const closing: Client[] = [];
afterEach(async () => {
  await Promise.allSettled(closing.splice(0).map((c) => c.close()));
});

/** An SDK v2 host on the SDK's own `StdioClientTransport` (the class the sibling probe requires). */
async function host(server: { command: string; args: string[] }, mode: Mode): Promise<Client> {
  const client = new Client({ name: 'probe-host', version: '1.0.0' }, { versionNegotiation: { mode } });
  await client.connect(new StdioClientTransport({ ...server, stderr: 'ignore' }));
  closing.push(client);
  return client;
}

describe("an SDK v2 host's version probe over stdio", () => {
  it('starts a plain SDK v2 server twice too: the second start is the SDK design, not a reply of the proxy', async () => {
    const plain = countStarts(inline(PLAIN_V2_SERVER));
    const client = await host(plain, 'auto');
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    // connect resolves once the session's process is spawned; its preload has run by the time it answers.
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['hello']);
    expect(plain.starts()).toHaveLength(2);
  });

  it("'auto': the probe's proxy starts the upstream only for server/discover; each upstream is ended", async () => {
    const upstream = loggingUpstream();
    const proxy = countStarts(proxyCommand(['wrap', '--', upstream.command, ...upstream.args]));
    const client = await host(proxy, 'auto');
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['hello']);
    expect(distinct(proxy.starts())).toBe(2);
    // The sibling's upstream was opened for the discover answer and nothing else; the session's serves the calls.
    const [probe, session] = upstream.processes();
    expect(upstream.processes()).toHaveLength(2);
    expect(probe?.methods).toEqual(['initialize', 'notifications/initialized']);
    expect(probe?.exited).toBe(true);
    expect(session?.methods).toEqual(['initialize', 'notifications/initialized', 'tools/list']);
    await client.close();
    await waitFor('the session upstream to exit', () => (upstream.processes()[1]?.exited ? true : undefined));
  });

  it("'legacy': one proxy, one upstream", async () => {
    const upstream = loggingUpstream();
    const proxy = countStarts(proxyCommand(['wrap', '--', upstream.command, ...upstream.args]));
    const client = await host(proxy, 'legacy');
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['hello']);
    expect(distinct(proxy.starts())).toBe(1);
    expect(upstream.processes()).toHaveLength(1);
  });

  it('a host that keeps the discover result (`connect({ prior })`) starts one proxy and one upstream', async () => {
    const first = loggingUpstream();
    const probed = await host(
      countStarts(proxyCommand(['wrap', '--', first.command, ...first.args])),
      'auto',
    );
    const discover = probed.getDiscoverResult();
    expect(discover).toBeDefined();
    await probed.close();
    const upstream = loggingUpstream();
    const proxy = countStarts(proxyCommand(['wrap', '--', upstream.command, ...upstream.args]));
    const client = new Client(
      { name: 'probe-host', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    closing.push(client);
    const transport = new StdioClientTransport({ ...proxy, stderr: 'ignore' });
    await client.connect(transport, { prior: { kind: 'modern', discover: discover! } });
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['hello']);
    expect(distinct(proxy.starts())).toBe(1);
    expect(upstream.processes().map((p) => p.methods)).toEqual([
      ['initialize', 'notifications/initialized', 'tools/list'],
    ]);
  });

  it('starts no upstream in a proxy whose host leaves before its first message', async () => {
    const upstream = loggingUpstream();
    const { command, args } = proxyCommand(['wrap', '--', upstream.command, ...upstream.args]);
    const child = spawn(command, args, { stdio: ['pipe', 'ignore', 'ignore'] });
    const exited = once(child, 'exit');
    child.stdin.end();
    expect((await exited)[0]).toBe(0);
    expect(upstream.processes()).toEqual([]);
  });
});
