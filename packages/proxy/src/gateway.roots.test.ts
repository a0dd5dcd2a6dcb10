import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { Gateway } from './gateway/startGateway.js';
import { filesystem } from './test-support/commands.js';
import { startGatewayProcess } from './test-support/gatewayProcess.js';
import { startModernServer } from './test-support/startModernServer.js';
import { waitFor } from './test-support/waitFor.js';

/**
 * The roots of a gateway's shared upstream are the operator's, no one host's: with `roots` in the server's entry
 * the gateway announces `roots` and answers the server's `roots/list` itself, asking no host; without, it does
 * not announce `roots`. Against the real `@modelcontextprotocol/server-filesystem`, which asks `roots/list` right
 * after it is initialized when the client declares `roots`, then serves those instead of its command-line
 * directories.
 */
const TOKEN = 'gateway-roots-token-0123';
const auth = { headers: { Authorization: `Bearer ${TOKEN}` } };
const closing: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  await Promise.allSettled(closing.splice(0).map((c) => c.close()));
});

const dir = (name: string) => realpathSync(mkdtempSync(join(tmpdir(), `proxy-gw-roots-${name}-`)));

async function gatewayOf(files: object) {
  const started = await startGatewayProcess({ files }, [], TOKEN);
  closing.push(started.gateway);
  return started;
}

/** Hosts of both revisions that declare `roots` and count being asked for them. */
async function hostsOf(gateway: Gateway) {
  const asked: string[] = [];
  const url = new URL(`${gateway.url}/files/mcp`);
  const session = new ClientV1({ name: 'test-host', version: '1.0.0' }, { capabilities: { roots: {} } });
  session.setRequestHandler(ListRootsRequestSchema, async () => {
    asked.push('session');
    return { roots: [] };
  });
  await session.connect(new HttpV1(url, { requestInit: auth }));
  closing.push(session);
  const modern = new Client(
    { name: 'test-host-v2', version: '1.0.0' },
    { capabilities: { roots: {} }, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  modern.setRequestHandler('roots/list', async () => {
    asked.push('modern');
    return { roots: [] };
  });
  await modern.connect(new StreamableHTTPClientTransport(url, { requestInit: auth }));
  closing.push(modern);
  return { session, modern, asked };
}

const allowed = async (host: { callTool(params: object): Promise<unknown> }) =>
  JSON.stringify(
    ((await host.callTool({ name: 'list_allowed_directories', arguments: {} })) as CallToolResult).content,
  );

describe("gateway: a shared upstream's roots", () => {
  it("are the entry's roots, answered by the gateway without asking a host: server-filesystem serves them", async () => {
    const [served, root, data] = [dir('served'), dir('root'), dir('data')];
    const { gateway, stderr } = await gatewayOf({
      ...filesystem(served),
      roots: [root, { uri: pathToFileURL(data).href, name: 'data' }],
    });
    await waitFor('the server taking the roots', () =>
      stderr().includes('Updated allowed directories from MCP roots: 2 valid directories') ? true : undefined,
    );
    const { session, modern, asked } = await hostsOf(gateway);
    for (const host of [session, modern]) {
      const now = await allowed(host);
      expect(now).toContain(root);
      expect(now).toContain(data);
      expect(now).not.toContain(served);
    }
    expect(asked).toEqual([]);
  });

  it("answer a 2026-07-28 server's roots/list round too, without asking a host", async () => {
    const root = dir('root');
    const modernServer = await startModernServer();
    closing.push(modernServer);
    const { gateway } = await startGatewayProcess(
      { files: { url: modernServer.url, roots: [root] } },
      [],
      TOKEN,
    );
    closing.push(gateway);
    const { session, modern, asked } = await hostsOf(gateway);
    for (const host of [session, modern]) {
      const result = (await host.callTool({ name: 'where', arguments: {} })) as CallToolResult;
      expect(JSON.stringify(result.content)).toContain(`roots: ${pathToFileURL(root).href}`);
    }
    expect(asked).toEqual([]);
  });

  it('without roots in the entry, are not announced: the server keeps its command-line directories', async () => {
    const served = dir('served');
    const { gateway, stderr } = await gatewayOf(filesystem(served));
    await waitFor('the server told there are no roots', () =>
      stderr().includes('Client does not support MCP Roots') ? true : undefined,
    );
    const { session, modern, asked } = await hostsOf(gateway);
    expect(await allowed(session)).toContain(served);
    expect(await allowed(modern)).toContain(served);
    expect(asked).toEqual([]);
  });
});
