import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
  CreateMessageRequestSchema,
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  type Progress,
} from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { everything } from './test-support/commands.js';
import { connectHost } from './test-support/connectHost.js';
import { progressSeen } from './test-support/progressSeen.js';

const clients: Client[] = [];
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
});
const track = (client: Client) => {
  clients.push(client);
  return client;
};

async function direct(): Promise<Client> {
  const client = new Client({ name: 'test-host', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ ...everything(), stderr: 'ignore' }));
  return track(client);
}

const wrapEverything = (capabilities = {}, setup?: (c: Client, t: StdioClientTransport) => void) => {
  const { command, args } = everything();
  return connectHost(['wrap', '--', command, ...args], capabilities, setup).then(track);
};

describe('mcp-resilience wrap, in front of @modelcontextprotocol/server-everything', () => {
  it('passes identity, capabilities, instructions and every list through unchanged', async () => {
    const [plain, wrapped] = await Promise.all([direct(), wrapEverything()]);
    expect(wrapped.getServerVersion()).toEqual(plain.getServerVersion());
    expect(wrapped.getServerCapabilities()).toEqual(plain.getServerCapabilities());
    expect(wrapped.getInstructions()).toEqual(plain.getInstructions());
    expect(await wrapped.listTools()).toEqual(await plain.listTools());
    expect(await wrapped.listPrompts()).toEqual(await plain.listPrompts());
    expect(await wrapped.listResources()).toEqual(await plain.listResources());
    expect(await wrapped.listResourceTemplates()).toEqual(await plain.listResourceTemplates());
    const uri = (await plain.listResources()).resources[0]?.uri as string;
    expect(await wrapped.readResource({ uri })).toEqual(await plain.readResource({ uri }));
  });

  it('forwards a tool call and its progress, with the host progress token mapped back', async () => {
    let seen: number[] = [];
    const wrapped = await wrapEverything({}, (_, transport) => {
      seen = progressSeen(transport);
    });
    expect(await wrapped.callTool({ name: 'echo', arguments: { message: 'hi' } })).toEqual({
      content: [{ type: 'text', text: 'Echo: hi' }],
    });
    const progress: Progress[] = [];
    const result = await wrapped.callTool(
      { name: 'trigger-long-running-operation', arguments: { duration: 0.3, steps: 3 } },
      undefined,
      { onprogress: (p) => progress.push(p) },
    );
    expect(result.isError).toBeFalsy();
    expect(seen).toEqual([1, 2, 3]);
    expect(progress.length).toBeGreaterThanOrEqual(2);
    expect(progress.every((p) => p.total === 3)).toBe(true);
  });

  it('answers invalid arguments with an isError result that names the classification', async () => {
    const wrapped = await wrapEverything();
    const result = await wrapped.callTool({ name: 'echo', arguments: { message: 5 } });
    expect(result.isError).toBe(true);
    expect(result._meta?.['io.mcp-resilience/classification']).toMatchObject({
      class: 'non_retryable',
      type: 'invalid_params',
      attempts: 1,
    });
  });

  it('forwards sampling and roots requests from the upstream to the host, with the host capabilities', async () => {
    const sampled: unknown[] = [];
    let rootsAsked = 0;
    const wrapped = await wrapEverything({ sampling: {}, roots: { listChanged: true } }, (client) => {
      client.setRequestHandler(CreateMessageRequestSchema, async (request) => {
        sampled.push(request.params.messages);
        return { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'sampled!' } };
      });
      client.setRequestHandler(ListRootsRequestSchema, async () => {
        rootsAsked++;
        return { roots: [{ uri: 'file:///tmp/project', name: 'project' }] };
      });
    });
    const tools = (await wrapped.listTools()).tools.map((t) => t.name);
    expect(tools).toContain('trigger-sampling-request');
    const result = await wrapped.callTool({
      name: 'trigger-sampling-request',
      arguments: { prompt: 'say hi', maxTokens: 10 },
    });
    expect(JSON.stringify(result.content)).toContain('sampled!');
    expect(sampled).toHaveLength(1);
    const roots = await wrapped.callTool({ name: 'get-roots-list', arguments: {} });
    expect(JSON.stringify(roots.content)).toContain('file:///tmp/project');
    expect(rootsAsked).toBeGreaterThan(0);
  });

  it('forwards logging/setLevel to the upstream and its log notifications to the host', async () => {
    const messages: unknown[] = [];
    let first: () => void = () => undefined;
    const logged = new Promise<void>((resolve) => {
      first = resolve;
    });
    const wrapped = await wrapEverything({}, (client) =>
      client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
        messages.push(n.params);
        first();
      }),
    );
    await wrapped.setLoggingLevel('debug');
    await wrapped.callTool({ name: 'toggle-simulated-logging', arguments: {} });
    // the first log notification the host receives (the upstream sends them on a timer of its own)
    await logged;
    expect(messages[0]).toMatchObject({ level: expect.any(String), data: expect.anything() });
  });
});
