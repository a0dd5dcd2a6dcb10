import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { ErrorCode, type JSONRPCMessage, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { GroundTruthEntry } from '../log/GroundTruthLog.js';
import type { FaultPlan } from '../plan/FaultPlan.js';
import { createChaosServer } from './createChaosServer.js';

const cli = join(import.meta.dirname, '../cli.ts');
const clients: Client[] = [];
afterEach(async () => {
  for (const client of clients.splice(0)) await client.close();
});

/** Runs `mcp-chaos serve --transport stdio` as a child process (through tsx) and connects a client to it. */
async function spawnStdio(plan: FaultPlan) {
  const dir = mkdtempSync(join(tmpdir(), 'chaos-stdio-'));
  const planFile = join(dir, 'plan.json');
  const logFile = join(dir, 'log.jsonl');
  writeFileSync(planFile, JSON.stringify(plan));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      '--import',
      'tsx',
      cli,
      'serve',
      '--transport',
      'stdio',
      '--plan',
      planFile,
      '--log',
      logFile,
      '--step-ms',
      '10',
    ],
    cwd: import.meta.dirname,
  });
  const client = new Client({ name: 'chaos-test', version: '1.0.0' });
  await client.connect(transport);
  clients.push(client);
  const readLog = (): GroundTruthEntry[] =>
    readFileSync(logFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
  return { client, transport, readLog };
}

/**
 * What arrives on the transport, in order, before the SDK dispatches it: the SDK handles a notification a
 * microtask later than a response that came in the same chunk, and then drops a last progress notification that
 * came just before its result (its handler is gone), so `onprogress` cannot tell what the server sent.
 */
function recordArrivals(transport: StdioClientTransport): string[] {
  const arrivals: string[] = [];
  const dispatch = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    const { method, params, result } = message as {
      method?: string;
      params?: { progress?: number };
      result?: unknown;
    };
    if (method === 'notifications/progress') arrivals.push(`progress ${params?.progress}`);
    else if (result !== undefined) arrivals.push('result');
    dispatch?.call(transport, message);
  };
  return arrivals;
}

const ticket = { name: 'create_ticket', arguments: { title: 'Printer on fire' } };

describe('createChaosServer (stdio)', () => {
  it('serves the tools over stdio, with faults and progress, and logs JSON lines', async () => {
    const { client, transport, readLog } = await spawnStdio({
      faults: [
        { kind: 'invalid_params', mode: 'error', tool: 'search' },
        { kind: 'http_error', tool: 'get_weather' },
      ],
    });
    const error = await client
      .callTool({ name: 'search', arguments: { query: 'x' } })
      .catch((e: McpError) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.InvalidParams);
    expect(
      (await client.callTool({ name: 'get_weather', arguments: { city: 'Tokyo' } })).isError,
    ).toBeUndefined();
    const arrivals = recordArrivals(transport);
    const request = { name: 'generate_report', arguments: { topic: 'x', steps: 2 } };
    await client.callTool(request, undefined, { onprogress: () => {} }); // a progressToken
    expect(arrivals).toEqual(['progress 0', 'progress 1', 'result']);
    expect(
      readLog().map(({ seq, transport, method, tool, requestId, fault, executed }) => ({
        seq,
        transport,
        method,
        tool,
        requestId,
        fault,
        executed,
      })),
    ).toEqual([
      { seq: 1, transport: 'stdio', method: 'initialize', requestId: 0, fault: null, executed: true },
      {
        seq: 2,
        transport: 'stdio',
        method: 'tools/call',
        tool: 'search',
        requestId: 1,
        fault: 'invalid_params',
        executed: false,
      },
      // HTTP-only faults never apply on stdio.
      {
        seq: 3,
        transport: 'stdio',
        method: 'tools/call',
        tool: 'get_weather',
        requestId: 2,
        fault: null,
        executed: true,
      },
      {
        seq: 4,
        transport: 'stdio',
        method: 'tools/call',
        tool: 'generate_report',
        requestId: 3,
        fault: null,
        executed: true,
      },
    ]);
  });

  it('crash: the process exits mid-call and the client sees Connection closed', async () => {
    const { client, readLog } = await spawnStdio({
      faults: [{ kind: 'crash', tool: 'create_ticket', exitCode: 3 }],
    });
    let closed = false;
    client.onclose = () => {
      closed = true;
    };
    const error = await client.callTool(ticket).catch((e: McpError) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(ErrorCode.ConnectionClosed);
    expect(closed).toBe(true);
    expect(readLog().at(-1)).toMatchObject({ tool: 'create_ticket', fault: 'crash', executed: false });
  });

  it('runs in-process on any transport, with a crash handler', async () => {
    const exits: number[] = [];
    const chaos = createChaosServer({
      plan: { faults: [{ kind: 'crash', tool: 'create_ticket', every: 2 }] },
      onCrash: (code) => exits.push(code),
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await chaos.connect(serverSide);
    const client = new Client({ name: 'chaos-test', version: '1.0.0' });
    await client.connect(clientSide);
    clients.push(client);
    await client.callTool(ticket);
    await expect(client.callTool(ticket, undefined, { timeout: 200 })).rejects.toThrow('Request timed out');
    expect(exits).toEqual([1]);
    expect(chaos.log.map((e) => [e.method, e.tool, e.fault, e.executed])).toEqual([
      ['initialize', undefined, null, true],
      ['tools/call', 'create_ticket', null, true],
      ['tools/call', 'create_ticket', 'crash', false],
      // The client gave up after 200 ms and said so; the server (not exited: a crash handler) logged it.
      ['notifications/cancelled', undefined, null, false],
    ]);
    expect(chaos.log[3]?.requestId).toBe(chaos.log[2]?.requestId);
    await chaos.close();
  });
});
