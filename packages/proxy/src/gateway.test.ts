import { request } from 'node:http';
import { type ChaosHttpServer, startChaosHttpServer } from '@mcp-resilience/chaos';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseGatewayConfig } from './gateway/loadGatewayConfig.js';
import { type Gateway, startGateway } from './gateway/startGateway.js';
import { everything } from './test-support/commands.js';
import { progressSeen } from './test-support/progressSeen.js';
import { waitFor } from './test-support/waitFor.js';

const TOKEN = 'test-token-0123456789';
let gateway: Gateway;
let primary: ChaosHttpServer;
let backup: ChaosHttpServer;
const hosts: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  primary = await startChaosHttpServer({
    seed: 1,
    stepMs: 50,
    plan: { faults: [{ kind: 'outage', tool: 'get_weather', method: 'tools/call' }] },
  });
  backup = await startChaosHttpServer({ seed: 2, stepMs: 50 });
  const config = parseGatewayConfig(
    {
      mcpServers: {
        everything: everything(),
        weather: {
          url: primary.url,
          resilience: { maxAttempts: 2, backoffBaseMs: 5 },
          fallbacks: ['weather-backup'],
        },
        'weather-backup': { url: backup.url },
      },
    },
    'test-config.json',
  );
  gateway = await startGateway({ config, port: 0, token: TOKEN, allowedHosts: ['gateway.internal:8787'] });
});

afterAll(async () => {
  await Promise.allSettled(hosts.map((h) => h.close()));
  await gateway?.close();
  await primary?.close();
  await backup?.close();
});

const auth = { headers: { Authorization: `Bearer ${TOKEN}` } };

async function hostV1(name: string, progress?: (seen: number[]) => void): Promise<Client> {
  const client = new Client({ name: 'test-host', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(`${gateway.url}/${name}/mcp`), {
    requestInit: auth,
  });
  progress?.(progressSeen(transport));
  await client.connect(transport);
  hosts.push(client);
  return client;
}

describe('mcp-resilience gateway', () => {
  it('serves a stdio server to SDK v1 and v2 clients over Streamable HTTP, one upstream for both', async () => {
    let seen: number[] = [];
    const v1 = await hostV1('everything', (s) => {
      seen = s;
    });
    await v1.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 0.2, steps: 2 } },
      undefined,
      { onprogress: () => {} },
    );
    expect(seen).toEqual([1, 2]);
    const v2 = new ClientV2({ name: 'test-host-v2', version: '1.0.0' });
    await v2.connect(new HttpV2(new URL(`${gateway.url}/everything/mcp`), { requestInit: auth }));
    hosts.push(v2);
    expect(v1.getServerVersion()?.name).toBe('mcp-servers/everything');
    const [tools1, tools2] = await Promise.all([v1.listTools(), v2.listTools()]);
    expect(tools2.tools.map((t) => t.name)).toEqual(tools1.tools.map((t) => t.name));
    expect(await v2.callTool({ name: 'echo', arguments: { message: 'v2' } })).toMatchObject({
      content: [{ type: 'text', text: 'Echo: v2' }],
    });
    expect(gateway.sessions()).toBeGreaterThanOrEqual(2);
  });

  it('sends a tool call to a fallback server of the config when the primary is down', async () => {
    const host = await hostV1('weather');
    const result = (await host.callTool({
      name: 'get_weather',
      arguments: { city: 'Paris' },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(backup.log.filter((e) => e.tool === 'get_weather' && e.executed)).toHaveLength(1);
    expect(primary.log.some((e) => e.tool === 'get_weather' && e.fault === 'outage')).toBe(true);
  });

  it('cancels upstream when the host closes its HTTP request', async () => {
    const host = await hostV1('weather-backup');
    const session = (host.transport as StreamableHTTPClientTransport).sessionId as string;
    const controller = new AbortController();
    const response = fetch(`${gateway.url}/weather-backup/mcp`, {
      method: 'POST',
      signal: controller.signal,
      headers: {
        ...auth.headers,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': session,
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 77,
        method: 'tools/call',
        params: { name: 'generate_report', arguments: { topic: 'x', steps: 40 } },
      }),
    }).catch((error: unknown) => error);
    await waitFor('the report to start upstream', () => backup.log.find((e) => e.tool === 'generate_report'));
    controller.abort();
    await response;
    const report = backup.log.find((e) => e.tool === 'generate_report');
    const cancelled = await waitFor('the upstream to log the cancellation', () =>
      backup.log.find((e) => e.method === 'notifications/cancelled' && e.requestId === report?.requestId),
    );
    expect(cancelled.via).toBe('notification');
  });

  it('refuses a wrong Host, a foreign Origin, a missing token, an unknown session and an oversized body', async () => {
    const url = `${gateway.url}/everything/mcp`;
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    const post = (headers: Record<string, string>, body: string = JSON.stringify(init)) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body,
      });
    expect((await post({})).status).toBe(401);
    expect((await post({ ...auth.headers, origin: 'http://evil.example' })).status).toBe(403);
    expect((await post({ ...auth.headers, 'mcp-session-id': 'nope' })).status).toBe(404);
    expect((await post(auth.headers, 'x'.repeat(5 * 1024 * 1024))).status).toBe(413);
    const rebound = await fetch(url.replace('127.0.0.1', 'localhost'), {
      method: 'GET',
      headers: auth.headers,
    });
    expect(rebound.status).toBe(400); // localhost:<port> is this gateway: allowed, then a GET needs a session
    const withHost = (host: string, headers: Record<string, string> = auth.headers) =>
      new Promise<number>((resolve, reject) => {
        const req = request(url, { method: 'GET', headers: { ...headers, host } }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
    expect(await withHost('attacker.example:80')).toBe(403);
    expect(await withHost('gateway.internal:8787', {})).toBe(401); // an allowed Host, then the token
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200); // liveness needs no token
    expect((await fetch(`${gateway.url}/nothing/mcp`, auth)).status).toBe(404);
  });
});
