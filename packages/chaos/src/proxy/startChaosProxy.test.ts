import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ErrorCode,
  LoggingMessageNotificationSchema,
  McpError,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { startChaosHttpServer } from '../http/startChaosHttpServer.js';
import type { GroundTruthEntry } from '../log/GroundTruthLog.js';
import { CANCELLED_METHOD } from '../log/GroundTruthLog.js';
import type { Fault } from '../plan/FaultPlan.js';
import { type ChaosProxy, type ChaosProxyOptions, startChaosProxy } from './startChaosProxy.js';

/** server-everything's launcher: `node index.js stdio|streamableHttp` (HTTP on `PORT`, path /mcp). */
const everything = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-everything/dist/index.js',
);

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  for (const resource of open.splice(0).reverse()) await resource.close();
});

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** server-everything over Streamable HTTP, as its own process. */
async function startEverythingHttp(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [everything, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
      if (stderr.includes('listening on port')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`server-everything exited (${code}): ${stderr}`)));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, child };
}

/** The pids of live processes whose command line contains `marker`. Linux only. */
function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      if (cmdline.includes(marker)) pids.push(Number(pid));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

async function connect(transport: StreamableHTTPClientTransport | StdioClientTransport) {
  const client = new Client({ name: 'proxy-test', version: '1.0.0' });
  await client.connect(transport);
  open.push(client);
  return client;
}

/** A client of `url` that records every HTTP response it gets. */
async function connectHttp(url: string) {
  const responses: { method: string; response: Response }[] = [];
  const recordingFetch = async (input: string | URL, init?: RequestInit) => {
    const response = await fetch(input, init);
    responses.push({ method: init?.method ?? 'GET', response });
    return response;
  };
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: recordingFetch });
  const client = await connect(transport);
  return { client, transport, responses };
}

async function proxy(options: ChaosProxyOptions): Promise<ChaosProxy> {
  const started = await startChaosProxy(options);
  open.push(started);
  return started;
}

/** How long a log line of another server may take to appear: a backstop for a broken test, not a wait. */
const LOG_WAIT = { timeout: 15_000, interval: 20 };

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => expect.fail('expected the call to fail'),
    (error: unknown) => error as Error & { code?: number; cause?: { code?: string } },
  );

const echo = { name: 'echo', arguments: { message: 'hello through the proxy' } };
const sum = { name: 'get-sum', arguments: { a: 2, b: 40 } };
const longRunning = { name: 'trigger-long-running-operation', arguments: { duration: 0.2, steps: 2 } };
const textOf = (result: Awaited<ReturnType<Client['callTool']>>) =>
  (result.content as { text: string }[])[0]?.text;
/** The log without `initialize`, as [fault, executed] pairs per tool. */
const outcomes = (log: readonly GroundTruthEntry[]) =>
  log
    .filter((entry) => entry.method === 'tools/call')
    .map((entry) => [entry.tool, entry.fault, entry.executed]);

interface UpstreamKind {
  name: 'http' | 'stdio';
  /** The proxy's upstream option. */
  upstream(): ChaosProxyOptions['upstream'];
  /** A client connected straight to the same server. */
  direct(): Promise<Client>;
  /** What an unknown session id gets from the proxy with the default plan: the upstream's answer, or the proxy's. */
  unknownSession: number;
}

let everythingHttp: { url: string; child: ChildProcess };
beforeAll(async () => {
  everythingHttp = await startEverythingHttp();
});
afterAll(() => {
  everythingHttp.child.kill();
});

const marker = `--chaos-proxy-test=${randomUUID()}`;
const stdioCommand = {
  command: process.execPath,
  args: [everything, 'stdio', marker],
  stderr: 'ignore' as const,
};

const kinds: UpstreamKind[] = [
  {
    name: 'http',
    upstream: () => ({ url: everythingHttp.url }),
    direct: async () => (await connectHttp(everythingHttp.url)).client,
    unknownSession: 400, // server-everything answers a stale session 400, and the proxy passes it through
  },
  {
    name: 'stdio',
    upstream: () => stdioCommand,
    direct: () => connect(new StdioClientTransport(stdioCommand)),
    unknownSession: 404, // the proxy's own sessions, as the spec and the TypeScript SDK answer
  },
];

describe.each(kinds)('startChaosProxy with a $name upstream (server-everything)', (kind) => {
  it('unfaulted requests return exactly what the server returns, progress included', async () => {
    const server = await proxy({ upstream: kind.upstream() });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const direct = await kind.direct();
    const { client, transport } = await connectHttp(server.url);

    const run = async (client: Client) => {
      const progress: Progress[] = [];
      return {
        server: client.getServerVersion(),
        capabilities: client.getServerCapabilities(),
        instructions: client.getInstructions(),
        tools: await client.listTools(),
        echo: await client.callTool(echo),
        sum: await client.callTool(sum),
        long: await client.callTool(longRunning, undefined, { onprogress: (p) => progress.push(p) }),
        progress,
      };
    };
    const [{ progress: directProgress, ...expected }, { progress, ...actual }] = await Promise.all([
      run(direct),
      run(client),
    ]);
    expect(actual).toEqual(expected);
    expect(actual.tools.tools.map((tool) => tool.name)).toContain('get-sum');
    expect(textOf(actual.sum)).toMatch(/42/);
    // Every progress notification the server sent. (A direct stdio client can miss the last one: the SDK runs
    // notification handlers a microtask late, and a response read in the same chunk removes the handler first.)
    const sent = [
      { progress: 1, total: 2 },
      { progress: 2, total: 2 },
    ];
    expect(progress).toEqual(sent);
    expect(sent.slice(0, directProgress.length)).toEqual(directProgress);
    expect(directProgress.length).toBeGreaterThan(0);

    const sessionId = transport.sessionId;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(server.log.map(({ method, tool, fault, executed }) => [method, tool, fault, executed])).toEqual([
      ['initialize', undefined, null, true],
      ['tools/list', undefined, null, true],
      ['tools/call', 'echo', null, true],
      ['tools/call', 'get-sum', null, true],
      ['tools/call', 'trigger-long-running-operation', null, true],
    ]);
    expect(server.log.every((entry) => entry.sessionId === sessionId && entry.transport === 'http')).toBe(
      true,
    );
  });

  it('invalid_params, rate_limit and http_error match the plan and the log', async () => {
    const faults: Fault[] = [
      { kind: 'invalid_params', tool: 'echo', times: 1 },
      { kind: 'rate_limit', tool: 'echo', retryAfter: 2, times: 1 },
      { kind: 'http_error', status: 503, tool: 'get-sum', times: 1 },
    ];
    const server = await proxy({ upstream: kind.upstream(), plan: { faults }, seed: 7 });
    const direct = await kind.direct();
    const { client, responses } = await connectHttp(server.url);

    const invalid = await client.callTool(echo);
    expect(invalid.isError).toBe(true);
    expect(textOf(invalid)).toBe(
      'MCP error -32602: Input validation error: Invalid arguments for tool echo: Invalid input: expected string, received number',
    );

    const limited = await failure(client.callTool(echo));
    expect(limited).toBeInstanceOf(StreamableHTTPError);
    expect(limited.code).toBe(429);
    const tooMany = responses.at(-1)?.response;
    expect(tooMany?.status).toBe(429);
    expect(tooMany?.headers.get('retry-after')).toBe('2');
    expect(limited.message).toContain('Rate limit exceeded. Retry after 2s.');

    expect(await client.callTool(echo)).toEqual(await direct.callTool(echo));

    const unavailable = await failure(client.callTool(sum));
    expect(unavailable.code).toBe(503);
    expect(unavailable.message).toContain('<title>503 Service Temporarily Unavailable</title>');
    expect(await client.callTool(sum)).toEqual(await direct.callTool(sum));

    expect(outcomes(server.log)).toEqual([
      ['echo', 'invalid_params', false],
      ['echo', 'rate_limit', false],
      ['echo', null, true],
      ['get-sum', 'http_error', false],
      ['get-sum', null, true],
    ]);
  });

  it('tool_error, hang, reset_after and session_expired match the plan and the log', async () => {
    const faults: Fault[] = [
      { kind: 'tool_error', tool: 'echo', text: 'Upstream API down', times: 1 },
      { name: 'stall', kind: 'hang', tool: 'echo', times: 1 },
      { kind: 'reset_after', tool: 'get-sum', times: 1 },
      { kind: 'session_expired', tool: 'get-sum', times: 1 },
    ];
    const server = await proxy({ upstream: kind.upstream(), plan: { faults } });
    const { client, transport } = await connectHttp(server.url);

    expect(await client.callTool(echo)).toEqual({
      content: [{ type: 'text', text: 'Upstream API down' }],
      isError: true,
    });
    const timedOut = await failure(client.callTool(echo, undefined, { timeout: 300 }));
    expect(timedOut).toBeInstanceOf(McpError);
    expect(timedOut.code).toBe(ErrorCode.RequestTimeout);

    const reset = await failure(client.callTool(sum));
    expect(reset).toBeInstanceOf(TypeError);
    expect(reset.cause?.code).toBe('UND_ERR_SOCKET');

    const sessionId = transport.sessionId;
    expect((await failure(client.callTool(sum))).code).toBe(404);
    // Forgotten for good: the next request on that session gets the same answer, without reaching the upstream.
    expect((await failure(client.callTool(echo))).code).toBe(404);
    expect(server.log.at(-1)).toMatchObject({ sessionId, tool: 'echo', fault: null, executed: false });

    // A new session works.
    const { client: again } = await connectHttp(server.url);
    expect(textOf(await again.callTool(echo))).toBe('Echo: hello through the proxy');

    expect(outcomes(server.log)).toEqual([
      ['echo', 'tool_error', false],
      ['echo', 'stall', false],
      ['get-sum', 'reset_after', true],
      ['get-sum', 'session_expired', false],
      ['echo', null, false],
      ['echo', null, true],
    ]);
  });

  it('passes the GET stream (server notifications) and DELETE through', async () => {
    const server = await proxy({ upstream: kind.upstream() });
    const { client, transport, responses } = await connectHttp(server.url);
    // The client opens its GET stream after `initialized`, without waiting: wait for it.
    await vi.waitFor(() => {
      const get = responses.find(({ method }) => method === 'GET')?.response;
      expect(get?.headers.get('content-type')).toBe('text/event-stream');
    });
    const logged: { level: string; data: unknown }[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => {
      logged.push(params);
    });
    const toggle = { name: 'toggle-simulated-logging', arguments: {} };
    expect(textOf(await client.callTool(toggle))).toMatch(/^Started simulated/);
    await vi.waitFor(() => expect(logged).toHaveLength(1));
    // Over HTTP the message names the session: the upstream's own id, which the proxy passes through.
    const suffix = kind.name === 'http' ? ` - SessionId ${transport.sessionId}` : '';
    expect(logged[0]?.data).toMatch(new RegExp(`^[A-Za-z]+[- ]level[- ]message${suffix}$`));
    expect(textOf(await client.callTool(toggle))).toMatch(/^Stopped simulated/);

    const sessionId = transport.sessionId;
    await transport.terminateSession();
    expect(responses.at(-1)).toMatchObject({ method: 'DELETE', response: { status: 200 } });
    expect(transport.sessionId).toBeUndefined();
    const after = await failure(client.callTool(echo));
    // Without a session id: server-everything's own answer through the proxy, or the proxy's own.
    expect(after.code).toBe(400);
    expect(after.message).toContain(
      kind.name === 'http'
        ? 'Bad Request: Server not initialized'
        : 'Bad Request: Mcp-Session-Id header is required',
    );
    if (kind.name === 'http') {
      // The upstream itself no longer knows the session.
      const stale = await fetch(everythingHttp.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sessionId ?? '',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 9, method: 'tools/list' }),
      });
      expect(stale.status).toBe(400);
    } else if (existsSync('/proc')) {
      // The session's upstream process has ended.
      await vi.waitFor(() => expect(processesWith(marker)).toEqual([]));
    }
  });
});

describe('startChaosProxy', () => {
  it.runIf(existsSync('/proc'))(
    'crash kills the stdio upstream of the session; close ends every upstream process',
    async () => {
      const server = await proxy({
        upstream: stdioCommand,
        plan: { faults: [{ kind: 'crash', tool: 'get-sum' }] },
      });
      const { client } = await connectHttp(server.url);
      const { client: bystander } = await connectHttp(server.url);
      expect(processesWith(marker)).toHaveLength(2);

      const crashed = await failure(client.callTool(sum));
      expect(crashed).toBeInstanceOf(TypeError);
      await vi.waitFor(() => expect(processesWith(marker)).toHaveLength(1));
      expect((await failure(client.callTool(echo))).code).toBe(404);
      // The other session has its own process, which lives on.
      expect(textOf(await bystander.callTool(echo))).toBe('Echo: hello through the proxy');
      expect(outcomes(server.log)).toEqual([
        ['get-sum', 'crash', false],
        ['echo', null, false],
        ['echo', null, true],
      ]);

      await server.close();
      expect(processesWith(marker)).toEqual([]);
    },
  );

  it('crash with an HTTP upstream forgets every session, as after a restart', async () => {
    const server = await proxy({
      upstream: { url: everythingHttp.url },
      plan: { faults: [{ kind: 'crash', tool: 'get-sum' }], unknownSession: 400 },
    });
    const { client } = await connectHttp(server.url);
    const { client: other } = await connectHttp(server.url);
    expect(await failure(client.callTool(sum))).toBeInstanceOf(TypeError);
    const gone = await failure(other.callTool(echo));
    expect(gone.code).toBe(400);
    expect(gone.message).toContain('Bad Request: No valid session ID provided');
  });

  it('answers 502 when the upstream cannot be reached or spawned', async () => {
    const port = await freePort();
    for (const upstream of [
      { url: `http://127.0.0.1:${port}/mcp` },
      { command: join(tmpdir(), `no-such-server-${randomUUID()}`) },
    ]) {
      const server = await proxy({ upstream });
      const error = await failure(connectHttp(server.url));
      expect(error.code).toBe(502);
      expect(error.message).toMatch(/Bad Gateway: .*(ECONNREFUSED|ENOENT)/);
      expect(server.log).toMatchObject([{ method: 'initialize', fault: null, executed: false }]);
    }
  });

  it('a stdio upstream that exits fails its pending requests as a stdio client would: -32000 Connection closed', async () => {
    const server = await proxy({
      upstream: { command: process.execPath, args: ['-e', 'setTimeout(() => process.exit(3), 100)'] },
    });
    const error = await failure(connectHttp(server.url));
    expect(error).toBeInstanceOf(McpError);
    expect(error.code).toBe(ErrorCode.ConnectionClosed);
    expect(error.message).toBe('MCP error -32000: Connection closed');
    expect(server.log).toMatchObject([{ method: 'initialize', fault: null, executed: true }]);
  });

  it('writes the ground-truth log file and rejects a bad upstream', async () => {
    const logFile = join(mkdtempSync(join(tmpdir(), 'chaos-proxy-')), 'log.jsonl');
    const server = await proxy({
      upstream: { url: everythingHttp.url },
      plan: { faults: [{ kind: 'invalid_params', mode: 'error', tool: 'get-sum' }] },
      logFile,
    });
    const { client } = await connectHttp(server.url);
    const error = await failure(client.callTool(sum));
    expect(error).toBeInstanceOf(McpError);
    expect(error.code).toBe(ErrorCode.InvalidParams);
    await server.close();
    const lines = readFileSync(logFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map(({ method, fault, executed }) => [method, fault, executed])).toEqual([
      ['initialize', null, true],
      ['tools/call', 'invalid_params', false],
    ]);

    await expect(startChaosProxy({ upstream: { url: 'ftp://example.com/mcp' } })).rejects.toThrow(
      'upstream.url must be an http(s) URL, got "ftp://example.com/mcp"',
    );
    await expect(startChaosProxy({ upstream: { command: ' ' } })).rejects.toThrow(
      'upstream.command must be a non-empty string',
    );
  });

  it('executed = the upstream got the request: checked against a chaos server upstream, HTTP and stdio', async () => {
    const faults: Fault[] = [
      { kind: 'invalid_params', tool: 'create_ticket', times: 1 },
      { kind: 'reset_after', tool: 'create_ticket', times: 1 },
      { kind: 'reset', tool: 'search', times: 1 },
      { kind: 'hang', tool: 'get_weather', times: 1 },
      { kind: 'hang', tool: 'get_weather', delay: 50, times: 1 },
      { kind: 'http_error', status: 502, tool: 'search', times: 1 },
    ];
    const ticket = { name: 'create_ticket', arguments: { title: 'Printer on fire' } };
    const search = { name: 'search', arguments: { query: 'mcp' } };
    const weather = { name: 'get_weather', arguments: { city: 'Paris' } };
    const key = ({ sessionId, method, tool, requestId }: GroundTruthEntry) => ({
      sessionId,
      method,
      tool,
      requestId,
    });

    const dir = mkdtempSync(join(tmpdir(), 'chaos-proxy-'));
    const upstreamLog = join(dir, 'upstream.jsonl');
    const chaosHttp = await startChaosHttpServer();
    open.push(chaosHttp);
    const cli = join(import.meta.dirname, '../cli.ts');
    const chaosStdio = {
      command: process.execPath,
      args: ['--import', 'tsx', cli, 'serve', '--transport', 'stdio', '--log', upstreamLog],
    };

    for (const upstream of [{ url: chaosHttp.url }, chaosStdio]) {
      const server = await proxy({ upstream, plan: { faults } });
      const { client } = await connectHttp(server.url);
      expect(textOf(await client.callTool(ticket))).toMatch(/^MCP error -32602/);
      expect(await failure(client.callTool(ticket))).toBeInstanceOf(TypeError);
      expect(textOf(await client.callTool(ticket))).toMatch(/TCK-\d+/);
      expect(await failure(client.callTool(search))).toBeInstanceOf(TypeError);
      expect((await failure(client.callTool(search))).code).toBe(502);
      expect(textOf(await client.callTool(search))).toMatch(/mcp/);
      expect((await failure(client.callTool(weather, undefined, { timeout: 200 }))).code).toBe(
        ErrorCode.RequestTimeout,
      );
      expect(textOf(await client.callTool(weather))).toMatch(/Paris/);
      expect(outcomes(server.log)).toEqual([
        ['create_ticket', 'invalid_params', false],
        ['create_ticket', 'reset_after', true],
        ['create_ticket', null, true],
        ['search', 'reset', false],
        ['search', 'http_error', false],
        ['search', null, true],
        ['get_weather', 'hang', false],
        ['get_weather', 'hang', true],
      ]);
      await server.close();

      const forwarded = server.log.filter((entry) => entry.executed);
      if ('url' in upstream) {
        // Same session ids and request ids upstream: the proxy changes nothing it forwards.
        // (The upstream also logged the cancellation of the request the client gave up on: forwarded too.)
        const requests = chaosHttp.log.filter((entry) => entry.method !== CANCELLED_METHOD);
        expect(requests.map(key)).toEqual(forwarded.map(key));
        expect(requests.every((entry) => entry.executed)).toBe(true);
        expect(chaosHttp.log.filter((entry) => entry.method === CANCELLED_METHOD)).toHaveLength(1);
      } else {
        // The upstream's own log file, written as it exited.
        const received = readFileSync(upstreamLog, 'utf8')
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as GroundTruthEntry)
          .filter((entry) => entry.method !== CANCELLED_METHOD);
        const stdioKey = (entry: GroundTruthEntry) => ({ ...key(entry), sessionId: undefined });
        expect(received.map(stdioKey)).toEqual(forwarded.map(stdioKey));
      }
    }
  });

  it('stream_broken: an SSE response opens, the upstream runs the request, then the stream dies unanswered', async () => {
    const chaosHttp = await startChaosHttpServer();
    open.push(chaosHttp);
    const server = await proxy({
      upstream: { url: chaosHttp.url },
      plan: { faults: [{ kind: 'stream_broken', tool: 'create_ticket', times: 1 }] },
    });
    const { client } = await connectHttp(server.url);
    const ticket = { name: 'create_ticket', arguments: { title: 'Printer on fire' } };
    // The SDK (v1) cannot resume a stream without event ids: the request waits for its timeout.
    expect((await failure(client.callTool(ticket, undefined, { timeout: 500 }))).code).toBe(
      ErrorCode.RequestTimeout,
    );
    // The client's timer races the request on its way: wait for both logs to have it, then check what they say.
    const tickets = (log: readonly GroundTruthEntry[]) => log.filter((e) => e.tool === 'create_ticket');
    await vi.waitFor(() => expect(tickets(chaosHttp.log).map((e) => e.executed)).toEqual([true]), LOG_WAIT);
    await vi.waitFor(() => expect(tickets(server.log)[0]?.executed).toBe(true), LOG_WAIT);
    expect(tickets(server.log).map((e) => [e.fault, e.executed])).toEqual([['stream_broken', true]]);
    expect(tickets(chaosHttp.log).map((e) => e.executed)).toEqual([true]);
    await server.close();
  });
});
