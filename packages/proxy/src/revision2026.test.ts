import { type ChaosHttpServer, type FaultPlan, startChaosHttpServer } from '@mcp-resilience/chaos';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  type CallToolResult,
  ElicitRequestSchema,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseGatewayConfig } from './gateway/loadGatewayConfig.js';
import { type Gateway, startGateway } from './gateway/startGateway.js';
import { chaosStdio, countStarts, proxyCommand } from './test-support/commands.js';
import { connectHost } from './test-support/connectHost.js';
import { classification, expectInvalidOnce } from './test-support/hostExpectations.js';
import { spawnHost } from './test-support/spawnHost.js';
import { type ModernServer, startModernServer } from './test-support/startModernServer.js';
import { waitFor } from './test-support/waitFor.js';
import { Upstream } from './upstream/Upstream.js';

/**
 * Upstreams that speak only protocol revision 2026-07-28 (the chaos server on the MCP SDK v2's server, 2025-era
 * openings refused with -32022), reached through the proxy in every mode, with the same pipeline; and a
 * 2025-11-25 upstream still spoken to as before.
 */
const TOKEN = 'revision-test-token-0123';
const INVALID_SEARCH: FaultPlan = { faults: [{ kind: 'invalid_params', tool: 'search', mode: 'error' }] };
const WEATHER = { name: 'get_weather', arguments: { city: 'Paris' } };
const TOOLS = ['get_weather', 'search', 'create_ticket', 'generate_report'];

const closing: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  await Promise.allSettled(closing.splice(0).map((c) => c.close()));
});

/** Lists the tools, calls one, then sends invalid arguments twice: one request upstream, the repeat answered. */
async function exercise(host: Pick<Client, 'listTools' | 'callTool'>, searches: () => number) {
  expect((await host.listTools()).tools.map((t) => t.name)).toEqual(TOOLS);
  const weather = (await host.callTool(WEATHER)) as CallToolResult;
  expect(weather.isError).toBeFalsy();
  expect(JSON.stringify(weather.content)).toContain('Paris');
  await expectInvalidOnce((params) => host.callTool(params), searches);
}

describe('an upstream that speaks only 2026-07-28', () => {
  let modern: ChaosHttpServer;
  beforeAll(async () => {
    modern = await startChaosHttpServer({ protocol: '2026-07-28', seed: 1, plan: INVALID_SEARCH });
  });
  afterAll(async () => {
    await modern?.close();
  });
  const searches = () => modern.log.filter((e) => e.tool === 'search').length;

  it('connect: refused initialize (-32022), then server/discover; tools listed, called, a fault classified', async () => {
    const host = await connectHost(['connect', modern.url]);
    closing.push(host);
    expect(host.getServerVersion()?.name).toBe('mcp-chaos');
    // The proxy opens as a 2025-11-25 client; the upstream's -32022 makes it speak 2026-07-28.
    expect(modern.log.slice(0, 2).map((e) => e.method)).toEqual(['initialize', 'server/discover']);
    await exercise(host, searches);
    expect(modern.log.filter((e) => e.method === 'initialize')).toHaveLength(1);
  });

  it('wrap: over stdio, with the SDK v2 entry (serveStdio) of the chaos server', async () => {
    const chaos = chaosStdio({ ...INVALID_SEARCH });
    const args = [...chaos.args, '--protocol', '2026-07-28'];
    const host = await connectHost(['wrap', '--', chaos.command, ...args]);
    closing.push(host);
    expect(host.getServerVersion()?.name).toBe('mcp-chaos');
    await exercise(host, () => chaos.entries().filter((e) => e.tool === 'search').length);
    expect(chaos.entries().some((e) => e.method === 'server/discover')).toBe(true);
  });

  it('wrap: one open starts one child (the refused initialize and server/discover on the same process)', async () => {
    const chaos = countStarts(chaosStdio({}));
    const host = await connectHost(['wrap', '--', chaos.command, ...chaos.args, '--protocol', '2026-07-28']);
    closing.push(host);
    expect((await host.listTools()).tools.map((t) => t.name)).toEqual(TOOLS);
    expect(chaos.starts()).toHaveLength(1);
    expect(chaos.entries().map((e) => e.method)).toEqual(['initialize', 'server/discover', 'tools/list']);
  });

  it('wrap: survives a crash of the 2026-07-28 child: respawned, the read-only call retried on 2026-07-28', async () => {
    // Each chaos process counts on its own: the 2nd get_weather of a process crashes it.
    const chaos = countStarts(chaosStdio({ faults: [{ kind: 'crash', tool: 'get_weather', every: 2 }] }));
    const host = await connectHost(['wrap', '--', chaos.command, ...chaos.args, '--protocol', '2026-07-28']);
    closing.push(host);
    expect(((await host.callTool(WEATHER)) as CallToolResult).isError).toBeFalsy();
    const afterCrash = (await host.callTool(WEATHER)) as CallToolResult;
    expect(afterCrash.isError).toBeFalsy();
    expect(JSON.stringify(afterCrash.content)).toContain('Paris');
    const calls = chaos.entries().filter((e) => e.method === 'tools/call' && e.tool === 'get_weather');
    expect(calls.map((e) => e.fault)).toEqual([null, 'crash', null]);
    // The respawned child was opened on 2026-07-28 again (a discover after the crash), not left on 2025-11-25.
    const methods = chaos.entries().map((e) => e.method);
    expect(methods.lastIndexOf('server/discover')).toBeGreaterThan(methods.indexOf('tools/call'));
    // One crash, one new child: the respawner and the retried call's reconnection did not both start one.
    expect(chaos.starts()).toHaveLength(2);
  });

  it('wrap: a host that goes away after a respawn of the 2026-07-28 child ends the proxy and every child', async () => {
    const chaos = countStarts(chaosStdio({ faults: [{ kind: 'crash', tool: 'get_weather', every: 2 }] }));
    const host = await spawnHost(['wrap', '--', chaos.command, ...chaos.args, '--protocol', '2026-07-28']);
    closing.push(host);
    expect(((await host.client.callTool(WEATHER)) as CallToolResult).isError).toBeFalsy();
    expect(((await host.client.callTool(WEATHER)) as CallToolResult).isError).toBeFalsy();
    host.leave();
    // Exits by itself on stdin's end (a child left running would hold it: the SDK's close would kill it later).
    expect(await host.exited).toEqual({ code: 0, signal: null });
    for (const pid of [host.pid, ...chaos.starts()]) expect(() => process.kill(pid, 0)).toThrow();
  });

  it('Upstream.open speaks 2026-07-28 to it and 2025-11-25 to a 2025-11-25 server, which sees no probe', async () => {
    const legacy = await startChaosHttpServer({ seed: 1 });
    closing.push(legacy);
    const [toModern, toLegacy] = await Promise.all([
      Upstream.open({ spec: { kind: 'http', url: modern.url } }),
      Upstream.open({ spec: { kind: 'http', url: legacy.url } }),
    ]);
    closing.push(toModern, toLegacy);
    expect([toModern.era, toLegacy.era]).toEqual(['modern', 'legacy']);
    expect(legacy.log.map((e) => e.method)).toEqual(['initialize']);
    expect(toModern.capabilities.tools).toBeDefined();
  });
});

describe('the gateway in front of 2026-07-28 upstreams (Streamable HTTP and stdio)', () => {
  let modern: ChaosHttpServer;
  let gateway: Gateway;
  const stdio = chaosStdio({ ...INVALID_SEARCH });
  beforeAll(async () => {
    modern = await startChaosHttpServer({ protocol: '2026-07-28', seed: 1, plan: INVALID_SEARCH });
    const config = parseGatewayConfig(
      {
        mcpServers: {
          remote: { url: modern.url },
          local: { command: stdio.command, args: [...stdio.args, '--protocol', '2026-07-28'] },
        },
      },
      'revision-test.json',
    );
    gateway = await startGateway({ config, port: 0, token: TOKEN });
  });
  afterAll(async () => {
    await gateway?.close();
    await modern?.close();
  });

  const auth = { headers: { Authorization: `Bearer ${TOKEN}` } };
  const url = (name: string) => new URL(`${gateway.url}/${name}/mcp`);

  it('serves a URL upstream to an SDK v1 host', async () => {
    const host = new Client({ name: 'test-host', version: '1.0.0' });
    await host.connect(new StreamableHTTPClientTransport(url('remote'), { requestInit: auth }));
    closing.push(host);
    await exercise(host, () => modern.log.filter((e) => e.tool === 'search').length);
  });

  it('serves a stdio upstream to an SDK v2 host negotiating (auto): 2026-07-28 on both sides', async () => {
    const sessions = gateway.sessions();
    const host = modernHost();
    await host.connect(new HttpV2(url('local'), { requestInit: auth }));
    closing.push(host);
    expect(host.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(host.getServerVersion()?.name).toBe('mcp-chaos');
    await exercise(host as never, () => stdio.entries().filter((e) => e.tool === 'search').length);
    expect(gateway.sessions()).toBeLessThanOrEqual(sessions); // 2026-07-28 opens no session
  });
});

const modernHost = () =>
  new ClientV2({ name: 'test-host-v2', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });

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

describe('the gateway, to a host on 2026-07-28, in front of a 2025-11-25 upstream', () => {
  let legacy: ChaosHttpServer;
  let gateway: Gateway;
  beforeAll(async () => {
    legacy = await startChaosHttpServer({ seed: 1, stepMs: 50, plan: INVALID_SEARCH });
    const growing = { command: process.execPath, args: ['--input-type=module', '-e', GROWING_SERVER] };
    const servers = { legacy: { url: legacy.url }, growing };
    const config = parseGatewayConfig({ mcpServers: servers }, 'revision-test.json');
    gateway = await startGateway({ config, port: 0, token: TOKEN });
  });
  afterAll(async () => {
    await gateway?.close();
    await legacy?.close();
  });
  const auth = { headers: { Authorization: `Bearer ${TOKEN}` } };

  it('answers server/discover, forwards the calls with the pipeline, progress and cancellation', async () => {
    const host = modernHost();
    await host.connect(new HttpV2(new URL(`${gateway.url}/legacy/mcp`), { requestInit: auth }));
    closing.push(host);
    expect(host.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    await exercise(host as never, () => legacy.log.filter((e) => e.tool === 'search').length);
    const progress: unknown[] = [];
    const report = (await host.callTool(
      { name: 'generate_report', arguments: { topic: 'mcp', steps: 2 } },
      { onprogress: (p) => progress.push(p.progress) },
    )) as CallToolResult;
    expect(report.isError).toBeFalsy();
    expect(progress).toEqual([0, 1]);
    // Closing the request's stream cancels it (the revision's cancellation on HTTP): the upstream is told.
    const stop = new AbortController();
    const slow = host.callTool(
      { name: 'generate_report', arguments: { topic: 'slow', steps: 40 } },
      { signal: stop.signal, onprogress: () => stop.abort('enough') },
    );
    await expect(slow).rejects.toThrow();
    const started = legacy.log.filter((e) => e.tool === 'generate_report').at(-1);
    const cancelled = await waitFor('the upstream to log the cancellation', () =>
      legacy.log.find((e) => e.method === 'notifications/cancelled' && e.requestId === started?.requestId),
    );
    expect(cancelled.via).toBe('notification');
  });

  it("passes the upstream's tools/list_changed to a subscriptions/listen stream that asked for it", async () => {
    const host = modernHost();
    const changed: unknown[] = [];
    host.setNotificationHandler('notifications/tools/list_changed', (n) => void changed.push(n.method));
    await host.connect(new HttpV2(new URL(`${gateway.url}/growing/mcp`), { requestInit: auth }));
    closing.push(host);
    const subscription = await host.listen({ toolsListChanged: true });
    closing.push(subscription);
    expect(subscription.honoredFilter).toMatchObject({ toolsListChanged: true });
    await host.callTool({ name: 'grow', arguments: {} });
    await waitFor('the list_changed on the listen stream', () => (changed.length > 0 ? changed : undefined));
    expect(changed).toEqual(['notifications/tools/list_changed']);
    expect((await host.listTools()).tools.map((t) => t.name)).toEqual(['grow', 'grown1']);
  });
});

describe('input_required rounds of a 2026-07-28 upstream, for a 2025-11-25 host', () => {
  let server: ModernServer;
  beforeAll(async () => {
    server = await startModernServer();
  });
  afterAll(async () => {
    await server?.close();
  });
  const confirm = { name: 'confirm', arguments: { action: 'deploy' } };

  it('each embedded request reaches the host as a server-to-client request; the call completes', async () => {
    const asked: unknown[] = [];
    const host = await connectHost(['connect', server.url], { elicitation: {} }, (client) => {
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        asked.push(request.params);
        return { action: 'accept', content: { confirm: true } };
      });
    });
    closing.push(host);
    const result = (await host.callTool(confirm)) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: 'text', text: 'deploy: done' }]);
    expect(asked).toMatchObject([{ message: 'deploy?' }]);
    expect(server.confirmations).toEqual([{ answered: false }, { answered: true }]);
  });

  it('a host without the capability gets a clear non-retryable failure, after one request', async () => {
    const before = server.confirmations.length;
    const host = await connectHost(['connect', server.url]);
    closing.push(host);
    const result = (await host.callTool(confirm)) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(classification(result)).toMatchObject({
      class: 'non_retryable',
      source: 'mcp.protocol.missing_capability',
      attempts: 1,
    });
    expect(JSON.stringify(result.content)).toContain('do not declare the required capability');
    expect(server.confirmations.length - before).toBe(1);
  });

  it("passes the upstream's tools/list_changed (sent on the proxy's subscriptions/listen stream) to the host", async () => {
    const changed: string[] = [];
    const host = await connectHost(['connect', server.url], {}, (client) => {
      client.setNotificationHandler(ToolListChangedNotificationSchema, (n) => void changed.push(n.method));
    });
    closing.push(host);
    await host.callTool({ name: 'grow', arguments: {} });
    await waitFor('the list_changed at the host', () => (changed.length > 0 ? changed : undefined));
    expect(changed).toEqual(['notifications/tools/list_changed']);
  });
});

/** An SDK v2 host pinned to 2026-07-28 that answers elicitations (the SDK answers the round and repeats). */
const answeringHost = (asked: unknown[]) => {
  const host = new ClientV2(
    { name: 'test-host-v2', version: '1.0.0' },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  host.setRequestHandler('elicitation/create', async (request) => {
    asked.push(request.params);
    return { action: 'accept', content: { confirm: true } };
  });
  return host;
};

describe('input_required rounds of a 2026-07-28 upstream shared by the gateway', () => {
  let server: ModernServer;
  let gateway: Gateway;
  beforeAll(async () => {
    server = await startModernServer();
    const config = parseGatewayConfig({ mcpServers: { modern: { url: server.url } } }, 'revision-test.json');
    gateway = await startGateway({ config, port: 0, token: TOKEN });
  });
  afterAll(async () => {
    await gateway?.close();
    await server?.close();
  });
  const confirm = { name: 'confirm', arguments: { action: 'deploy' } };
  const auth = { headers: { Authorization: `Bearer ${TOKEN}` } };
  const legacyHost = async (capabilities: Record<string, object>) => {
    const host = new Client({ name: 'test-host', version: '1.0.0' }, { capabilities });
    await host.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.url}/modern/mcp`), { requestInit: auth }),
    );
    closing.push(host);
    return host;
  };

  it('reach the host whose call it is, when it declared the capability; the call completes', async () => {
    const host = await legacyHost({ elicitation: {} });
    const asked: unknown[] = [];
    host.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { confirm: true } };
    });
    const result = (await host.callTool(confirm)) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: 'text', text: 'deploy: done' }]);
    expect(asked).toMatchObject([{ message: 'deploy?' }]);
  });

  it('are refused for a host without the capability: a non-retryable failure, after one request', async () => {
    const before = server.confirmations.length;
    const host = await legacyHost({});
    const result = (await host.callTool(confirm)) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(classification(result)).toMatchObject({ class: 'non_retryable', attempts: 1 });
    expect(JSON.stringify(result.content)).toContain('did not declare the \\"elicitation\\" capability');
    expect(server.confirmations.length - before).toBe(1);
  });

  it("a refusal one host got answers only that host's repeat, never another host's identical call", async () => {
    const before = server.confirmations.length;
    const lacking = await legacyHost({});
    const refused = (await lacking.callTool(confirm)) as CallToolResult;
    expect(classification(refused)).toMatchObject({ class: 'non_retryable', attempts: 1 });
    // Its model's repeat is answered from the negative cache: no request upstream.
    expect(((await lacking.callTool(confirm)) as CallToolResult).isError).toBe(true);
    expect(server.confirmations.length - before).toBe(1);
    // Another host on the same gateway and upstream, with the capability, within the cache's TTL: its call runs.
    const able = await legacyHost({ elicitation: {} });
    able.setRequestHandler(ElicitRequestSchema, async () => ({
      action: 'accept',
      content: { confirm: true },
    }));
    const done = (await able.callTool(confirm)) as CallToolResult;
    expect(done.isError).toBeFalsy();
    expect(done.content).toEqual([{ type: 'text', text: 'deploy: done' }]);
    // And a host on 2026-07-28 (no session) gets the round itself, not the 2025-11-25 session's refusal.
    const asked: unknown[] = [];
    const modern = answeringHost(asked);
    await modern.connect(new HttpV2(new URL(`${gateway.url}/modern/mcp`), { requestInit: auth }));
    closing.push(modern);
    expect(((await modern.callTool(confirm)) as CallToolResult).isError).toBeFalsy();
    expect(asked).toMatchObject([{ message: 'deploy?' }]);
    expect(server.confirmations.slice(before).map((c) => c.answered)).toEqual([
      false,
      false,
      true,
      false,
      true,
    ]);
  });
});

// Hosts on 2026-07-28 have no session: on a gateway they share one memory of failures, apart from every
// 2025-11-25 session's (the block above shows such a session's refusal does not answer them).
describe('input_required rounds of a 2026-07-28 upstream, for a host on 2026-07-28', () => {
  let server: ModernServer;
  let gateway: Gateway;
  beforeAll(async () => {
    server = await startModernServer();
    const config = parseGatewayConfig({ mcpServers: { modern: { url: server.url } } }, 'revision-test.json');
    gateway = await startGateway({ config, port: 0, token: TOKEN });
  });
  afterAll(async () => {
    await gateway?.close();
    await server?.close();
  });
  const confirm = { name: 'confirm', arguments: { action: 'deploy' } };
  const expectRoundCrossed = async (host: ClientV2, asked: unknown[], before: number) => {
    closing.push(host);
    expect(host.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    const result = (await host.callTool(confirm)) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: 'text', text: 'deploy: done' }]);
    // The host itself was asked, as the round's embedded request, and the upstream got its answer.
    expect(asked).toMatchObject([{ message: 'deploy?' }]);
    expect(server.confirmations.slice(before)).toEqual([{ answered: false }, { answered: true }]);
  };

  it('gateway: the round reaches the host as an input_required result; its repeat completes the call', async () => {
    const asked: unknown[] = [];
    const host = answeringHost(asked);
    const auth = { headers: { Authorization: `Bearer ${TOKEN}` } };
    const before = server.confirmations.length;
    await host.connect(new HttpV2(new URL(`${gateway.url}/modern/mcp`), { requestInit: auth }));
    await expectRoundCrossed(host, asked, before);
  });

  it('connect: a stdio host on 2026-07-28 answers the round the same way', async () => {
    const asked: unknown[] = [];
    const host = answeringHost(asked);
    const { command, args } = proxyCommand(['connect', server.url]);
    const before = server.confirmations.length;
    await host.connect(new StdioV2({ command, args, stderr: 'ignore' }));
    await expectRoundCrossed(host, asked, before);
  });

  it('gateway: a host on 2026-07-28 without the capability is handed the round, and its SDK refuses it', async () => {
    const host = new ClientV2(
      { name: 'test-host-v2', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    const auth = { headers: { Authorization: `Bearer ${TOKEN}` } };
    const before = server.confirmations.length;
    await host.connect(new HttpV2(new URL(`${gateway.url}/modern/mcp`), { requestInit: auth }));
    closing.push(host);
    // The shared upstream announces the input capabilities: the round reaches the host, whose SDK says why not.
    await expect(host.callTool(confirm)).rejects.toThrow(
      /Cannot fulfil input request 'confirm'.*elicitation\/create/,
    );
    expect(server.confirmations.length - before).toBe(1);
  });

  it('a host on 2026-07-28 without the capability gets the round refused, after one request', async () => {
    const host = new ClientV2(
      { name: 'test-host-v2', version: '1.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    const { command, args } = proxyCommand(['connect', server.url]);
    const before = server.confirmations.length;
    await host.connect(new StdioV2({ command, args, stderr: 'ignore' }));
    closing.push(host);
    const result = (await host.callTool(confirm)) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(classification(result)).toMatchObject({ class: 'non_retryable', attempts: 1 });
    expect(server.confirmations.length - before).toBe(1);
  });
});
