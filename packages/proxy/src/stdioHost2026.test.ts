import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type ChaosHttpServer, startChaosHttpServer } from '@mcp-resilience/chaos';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { chaosStdio } from './test-support/commands.js';
import { connectModernHost } from './test-support/connectModernHost.js';
import {
  classification,
  expectCancellationCrosses,
  expectInvalidOnce,
} from './test-support/hostExpectations.js';
import { waitFor } from './test-support/waitFor.js';

/**
 * The stdio host side of `wrap` and `connect` on protocol revision 2026-07-28: a real SDK v2 host
 * (`@modelcontextprotocol/client` 2.4.0) spawns the built `mcp-resilience` and negotiates; the upstreams are
 * 2025-11-25 servers (the chaos server), so every call crosses both revisions. A host that opens 2025-11-25
 * still gets 2025-11-25.
 */
const INVALID_SEARCH = { faults: [{ kind: 'invalid_params', tool: 'search', mode: 'error' }] };
const WEATHER = { name: 'get_weather', arguments: { city: 'Paris' } };
const PIN = { pin: '2026-07-28' } as const;

const closing: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  await Promise.allSettled(closing.splice(0).map((c) => c.close()));
});

async function host(args: string[], mode?: Parameters<typeof connectModernHost>[1]) {
  const client = await connectModernHost(args, mode);
  closing.push(client);
  return client;
}

/** What the chaos server lists to a client connected to it directly (SDK v1, stdio). */
async function directTools(command: string, args: string[]) {
  const direct = new Client({ name: 'direct', version: '1.0.0' });
  await direct.connect(new StdioClientTransport({ command, args, stderr: 'ignore' }));
  closing.push(direct);
  return (await direct.listTools()).tools;
}

describe('wrap, to an SDK v2 host over stdio', () => {
  it("negotiates 2026-07-28 ('auto'): tools/list unchanged, invalid arguments sent upstream once", async () => {
    const chaos = chaosStdio(INVALID_SEARCH);
    const client = await host(['wrap', '--', chaos.command, ...chaos.args]);
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(client.getServerVersion()?.name).toBe('mcp-chaos');
    const tools = (await client.listTools()).tools;
    // Unchanged but for `execution` (task support), vocabulary that 2026-07-28 deleted: the SDK v2 drops it.
    const direct = (await directTools(chaos.command, chaos.args)).map(({ execution, ...tool }) => tool);
    expect(tools).toEqual(direct);
    const weather = (await client.callTool(WEATHER)) as CallToolResult;
    expect(weather.isError).toBeFalsy();
    expect(JSON.stringify(weather.content)).toContain('Paris');
    await expectInvalidOnce(
      (params) => client.callTool(params),
      () => chaos.entries().filter((e) => e.tool === 'search').length,
    );
  });

  it('serves 2025-11-25 to a host that opens with initialize', async () => {
    const chaos = chaosStdio({ faults: [] });
    const client = await host(['wrap', '--', chaos.command, ...chaos.args], 'legacy');
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('search');
  });

  it('forwards progress, and the host cancellation reaches the upstream as notifications/cancelled', async () => {
    const chaos = chaosStdio({ faults: [] });
    const client = await host(['wrap', '--', chaos.command, ...chaos.args], PIN);
    await expectCancellationCrosses((params, options) => client.callTool(params, options), chaos.entries);
  });

  it('gives fast isError results for a dead upstream once its breaker is open, without starting it', async () => {
    // Once the server answered (the SDK probes on a sibling process, then the session's proxy starts it at its
    // first request), it is gone: the crash of the first call is final, every restart fails.
    const chaos = chaosStdio({ faults: [{ kind: 'crash', tool: 'get_weather' }] });
    const dead = join(mkdtempSync(join(tmpdir(), 'proxy-dead-')), 'dead');
    const starts = join(dirname(dead), 'starts');
    const script = `echo x >> ${starts}; if [ -e ${dead} ]; then exit 1; fi; exec "$0" "$@"`;
    const breaker = ['--breaker-consecutive-failures', '3', '--breaker-break-ms', '600000'];
    const flags = ['--max-attempts', '2', '--backoff-base-ms', '10', ...breaker, '--breaker-wait', 'false'];
    const command = ['sh', '-c', script, chaos.command, ...chaos.args];
    const client = await host(['wrap', ...flags, '--breaker-max-break-ms', '600000', '--', ...command], PIN);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    writeFileSync(dead, '');
    const startCount = () => readFileSync(starts, 'utf8').split('\n').length - 1;
    let result: CallToolResult = { content: [] };
    for (let i = 0; i < 6 && classification(result)?.reason !== 'circuit_open'; i++) {
      result = (await client.callTool(WEATHER)) as CallToolResult;
      expect(result.isError).toBe(true);
    }
    expect(classification(result)).toMatchObject({ reason: 'circuit_open' });
    await client.callTool(WEATHER); // a restart begun before the breaker opened is waited for; none after
    const started = startCount();
    const fast = (await client.callTool(WEATHER)) as CallToolResult;
    expect(fast.isError).toBe(true);
    expect(classification(fast)).toMatchObject({ reason: 'circuit_open' });
    expect(startCount()).toBe(started);
  });
});

/** A 2025-11-25 stdio server (SDK v1) whose `grow` tool adds a tool: the SDK sends `tools/list_changed`. */
const GROWING_SERVER = `
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
const server = new McpServer({ name: 'growing', version: '1.0.0' });
let n = 0;
server.registerTool('grow', {}, async () => {
  server.registerTool('grown' + ++n, {}, async () => ({ content: [] }));
  return { content: [{ type: 'text', text: 'grown' + n }] };
});
await server.connect(new StdioServerTransport());
`;

describe('wrap, to an SDK v2 host over stdio, notifications', () => {
  it("passes the upstream's tools/list_changed to a subscriptions/listen stream that asked for it", async () => {
    const growing = ['--', process.execPath, '--input-type=module', '-e', GROWING_SERVER];
    const client = await host(['wrap', ...growing], PIN);
    const changed: string[] = [];
    client.setNotificationHandler('notifications/tools/list_changed', (n) => void changed.push(n.method));
    const subscription = await client.listen({ toolsListChanged: true });
    closing.push(subscription);
    expect(subscription.honoredFilter).toMatchObject({ toolsListChanged: true });
    await client.callTool({ name: 'grow', arguments: {} });
    await waitFor('the list_changed on the listen stream', () => (changed.length > 0 ? changed : undefined));
    expect(changed).toEqual(['notifications/tools/list_changed']);
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['grow', 'grown1']);
  });
});

describe('connect, to an SDK v2 host over stdio', () => {
  let chaos: ChaosHttpServer;
  beforeAll(async () => {
    chaos = await startChaosHttpServer({ seed: 1, plan: INVALID_SEARCH as never });
  });
  afterAll(async () => {
    await chaos?.close();
  });

  it("negotiates 2026-07-28 ('auto') in front of a 2025-11-25 Streamable HTTP server", async () => {
    const client = await host(['connect', chaos.url]);
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
      'get_weather',
      'search',
      'create_ticket',
      'generate_report',
    ]);
    await expectInvalidOnce(
      (params) => client.callTool(params),
      () => chaos.log.filter((e) => e.tool === 'search').length,
    );
  });
});
