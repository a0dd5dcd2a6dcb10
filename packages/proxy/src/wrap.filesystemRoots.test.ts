import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Client, type ClientOptions } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { filesystem, proxyCommand } from './test-support/commands.js';
import { waitFor } from './test-support/waitFor.js';

/**
 * `@modelcontextprotocol/server-filesystem` (SDK v1, 2025-11-25) asks `roots/list` right after it is initialized
 * when the client declares `roots`, and then serves those roots instead of its command-line directories. Through
 * `wrap`, for a real SDK v2 host pinned to 2026-07-28, that request has no call to belong to: the proxy holds it
 * and the host's first call carries it as an `input_required` round.
 */
const closing: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  await Promise.allSettled(closing.splice(0).map((c) => c.close()));
});

type Capabilities = NonNullable<ClientOptions['capabilities']>;

/** A host of `wrap -- server-filesystem <served>` whose stderr (the server's, passed through) is collected. */
async function host(served: string, capabilities: Capabilities, flags: string[] = []) {
  const server = filesystem(served);
  const { command, args } = proxyCommand(['wrap', ...flags, '--', server.command, ...server.args]);
  const client = new Client(
    { name: 'test-host-v2', version: '1.0.0' },
    { capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  const transport = new StdioClientTransport({ command, args, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const asked: unknown[] = [];
  await client.connect(transport);
  closing.push(client);
  return { client, asked, stderr: () => stderr };
}

const dir = (name: string) => realpathSync(mkdtempSync(join(tmpdir(), `proxy-roots-${name}-`)));
const allowed = async (client: Client) => {
  const result = (await client.callTool({
    name: 'list_allowed_directories',
    arguments: {},
  })) as CallToolResult;
  return JSON.stringify(result.content);
};

describe('wrap: a roots/list asked right after connecting, for a 2026-07-28 host', () => {
  it("is held and carried by the host's first call: the server then serves the host's roots", async () => {
    const [served, root] = [dir('served'), dir('root')];
    const h = await host(served, { roots: {} });
    h.client.setRequestHandler('roots/list', async () => {
      h.asked.push('roots/list');
      return { roots: [{ uri: pathToFileURL(root).href, name: 'host root' }] };
    });
    // server/discover (not a call) starts the server, which asks at once, before the host's first call.
    await h.client.discover();
    await allowed(h.client);
    expect(h.asked).toEqual(['roots/list']);
    await waitFor('the server taking the roots', () =>
      h.stderr().includes('Updated allowed directories from MCP roots: 1 valid directories')
        ? true
        : undefined,
    );
    const now = await allowed(h.client);
    expect(now).toContain(root);
    expect(now).not.toContain(served);
    // Asked once: the later calls carry nothing.
    expect(h.asked).toEqual(['roots/list']);
  });

  it('a host without roots is not asked: the server keeps its command-line directories', async () => {
    const served = dir('served');
    const h = await host(served, {});
    expect(await allowed(h.client)).toContain(served);
    expect(h.stderr()).toContain('Client does not support MCP Roots');
  });

  it('refused to the server, with the reason, when no call comes within --input-round-timeout-ms', async () => {
    const served = dir('served');
    const h = await host(served, { roots: {} }, ['--input-round-timeout-ms', '300']);
    h.client.setRequestHandler('roots/list', async () => {
      h.asked.push('roots/list');
      return { roots: [] };
    });
    // A pinned host sends nothing at connect: its server/discover (not a call) is the first message, which
    // starts the server.
    await h.client.discover();
    const line = await waitFor(
      'the server told why',
      () => /Failed to request initial roots from client: (.*)/.exec(h.stderr())?.[1],
    );
    expect(line).toMatch(/no call of the host came within 300 ms/);
    expect(await allowed(h.client)).toContain(served);
    expect(h.asked).toEqual([]);
  });
});
