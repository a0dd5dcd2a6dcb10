import { Client, type ClientOptions } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { type AskEvent, askingStdio } from './test-support/askingStdio.js';
import { everything, proxyCommand } from './test-support/commands.js';
import { startAskingHttpServer } from './test-support/startAskingHttpServer.js';
import { waitFor } from './test-support/waitFor.js';

/**
 * `wrap` (and `connect`) between a real SDK v2 host pinned to 2026-07-28 (`@modelcontextprotocol/client`) and
 * real SDK v1 upstreams whose tools call `elicitInput` / `createMessage` during the call (our own small server,
 * and `@modelcontextprotocol/server-everything`): the upstream's server-to-client requests reach the host as
 * `input_required` rounds, and the host's repeat continues the same upstream call.
 */
const closing: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  await Promise.allSettled(closing.splice(0).map((c) => c.close()));
});

type Capabilities = NonNullable<ClientOptions['capabilities']>;

async function modernHost(
  args: string[],
  capabilities: Capabilities = {},
  extra: Partial<ClientOptions> = {},
) {
  const host = new Client(
    { name: 'test-host-v2', version: '1.0.0' },
    { capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } }, ...extra },
  );
  const { command, args: argv } = proxyCommand(args);
  await host.connect(new StdioClientTransport({ command, args: argv, stderr: 'ignore' }));
  closing.push(host);
  return host;
}

const of = (events: AskEvent[], tool: string) => events.filter((e) => e.tool === tool).map((e) => e.event);
const text = (result: CallToolResult) => JSON.stringify(result.content);

/** A `tools/call` in the SDK v2's manual mode: an `input_required` result is handed back, not fulfilled. */
const manual = (host: Client, params: Record<string, unknown>) =>
  host.request(
    { method: 'tools/call', params } as never,
    { allowInputRequired: true } as never,
  ) as Promise<unknown>;
type Round = { resultType: string; inputRequests: Record<string, unknown>; requestState: string };
/** The manual host's repeat of `round`, accepting its one elicitation. */
const answer = (host: Client, tool: string, round: Round, args: Record<string, unknown> = {}) =>
  manual(host, {
    name: tool,
    arguments: args,
    inputResponses: {
      [Object.keys(round.inputRequests)[0] as string]: { action: 'accept', content: { ok: true } },
    },
    requestState: round.requestState,
  });

describe('wrap and connect: a 2025-11-25 upstream asks a 2026-07-28 host during its call', () => {
  it('elicitation/create crosses as an input_required round; the repeat continues the same upstream call', async () => {
    const upstream = askingStdio();
    const host = await modernHost(['wrap', '--', upstream.command, ...upstream.args], { elicitation: {} });
    const asked: unknown[] = [];
    host.setRequestHandler('elicitation/create', async (request) => {
      asked.push(request.params);
      return { action: 'accept', content: { ok: true } };
    });
    const result = (await host.callTool({ name: 'confirm', arguments: {} })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(text(result)).toContain('answer: {\\"action\\":\\"accept\\",\\"content\\":{\\"ok\\":true}}');
    expect(asked).toEqual([expect.objectContaining({ message: 'Proceed?' })]);
    // One upstream call, answered: the repeat did not start another.
    expect(of(upstream.events(), 'confirm')).toEqual(['called', 'answered']);
  });

  it('sampling/createMessage crosses the same way', async () => {
    const upstream = askingStdio();
    const host = await modernHost(['wrap', '--', upstream.command, ...upstream.args], { sampling: {} });
    host.setRequestHandler('sampling/createMessage', async () => ({
      role: 'assistant',
      content: { type: 'text', text: 'hello' },
      model: 'test-model',
    }));
    const result = (await host.callTool({ name: 'ask_model', arguments: {} })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(text(result)).toContain('hello');
    expect(of(upstream.events(), 'ask_model')).toEqual(['called', 'answered']);
  });

  it('a host that did not declare the capability gets the request refused to the upstream, as before', async () => {
    const upstream = askingStdio();
    const host = await modernHost(['wrap', '--', upstream.command, ...upstream.args], { sampling: {} });
    const result = (await host.callTool({ name: 'confirm', arguments: {} })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(of(upstream.events(), 'confirm')).toEqual(['called', 'refused']);
    expect(upstream.events().find((e) => e.event === 'refused')?.detail).toMatch(/elicitation/);
  });

  it('a round never repeated is refused to the upstream after the timeout and the upstream call cancelled', async () => {
    const upstream = askingStdio();
    const args = ['wrap', '--input-round-timeout-ms', '300', '--', upstream.command, ...upstream.args];
    const host = await modernHost(args, { elicitation: {} }, { inputRequired: { autoFulfill: false } });
    const round = (await manual(host, { name: 'confirm_or_wait', arguments: {} })) as {
      resultType: string;
      inputRequests: Record<string, unknown>;
      requestState: string;
    };
    expect(round.resultType).toBe('input_required');
    expect(Object.values(round.inputRequests)).toEqual([
      expect.objectContaining({ method: 'elicitation/create' }),
    ]);
    await waitFor('the upstream call cancelled', () =>
      of(upstream.events(), 'confirm_or_wait').includes('cancelled') ? true : undefined,
    );
    expect(of(upstream.events(), 'confirm_or_wait')).toEqual(['called', 'refused', 'cancelled']);
    expect(upstream.events().find((e) => e.event === 'refused')?.detail).toMatch(/within 300 ms/);
    // Its requestState is now unknown: the late repeat is refused with a clear error.
    const [key] = Object.keys(round.inputRequests);
    await expect(
      manual(host, {
        name: 'confirm_or_wait',
        arguments: {},
        inputResponses: { [key as string]: { action: 'accept', content: { ok: true } } },
        requestState: round.requestState,
      }),
    ).rejects.toThrow(/unknown requestState/);
    // The moment passed, and nothing of it was remembered: the same call runs upstream again and completes.
    const again = (await manual(host, { name: 'confirm_or_wait', arguments: {} })) as Round;
    expect(text((await answer(host, 'confirm_or_wait', again)) as CallToolResult)).toContain('answer:');
    expect(of(upstream.events(), 'confirm_or_wait')).toEqual([
      'called',
      'refused',
      'cancelled',
      'called',
      'answered',
    ]);
  });

  it('a request related to none of two calls in flight is refused, and not remembered: the same call later succeeds', async () => {
    const upstream = askingStdio();
    const args = ['wrap', '--', upstream.command, ...upstream.args];
    const host = await modernHost(args, { elicitation: {} }, { inputRequired: { autoFulfill: false } });
    const round = (await manual(host, { name: 'confirm', arguments: {} })) as Round;
    // A second call while the first is pending: the upstream's request does not say which it is for.
    const second = { name: 'confirm', arguments: { again: true } };
    expect(((await manual(host, second)) as CallToolResult).isError).toBe(true);
    expect(upstream.events()[2]?.detail).toMatch(/not related to exactly one call of this host in flight/);
    // The first call ends without a success (which would have cleared the memory): its repeat answers nothing.
    const { requestState } = round;
    const first = (await manual(host, { name: 'confirm', arguments: {}, requestState })) as CallToolResult;
    expect(first.isError).toBe(true);
    // The moment passed: the second call's identical repeat runs upstream, gets its round and completes.
    const again = (await manual(host, second)) as Round;
    expect(again.resultType).toBe('input_required');
    expect(text((await answer(host, 'confirm', again, { again: true })) as CallToolResult)).toContain(
      'answer:',
    );
    expect(upstream.events().map((e) => e.event)).toEqual([
      'called',
      'called',
      'refused',
      'refused',
      'called',
      'answered',
    ]);
  });

  it('a requestState this host was never given is refused', async () => {
    const upstream = askingStdio();
    const host = await modernHost(['wrap', '--', upstream.command, ...upstream.args], { elicitation: {} });
    await expect(manual(host, { name: 'confirm', arguments: {}, requestState: 'not-mine' })).rejects.toThrow(
      /unknown requestState/,
    );
    expect(of(upstream.events(), 'confirm')).toEqual([]);
  });

  it("server-everything's sampling and elicitation tools answer through the host's rounds", async () => {
    const server = everything();
    const host = await modernHost(['wrap', '--', server.command, ...server.args], {
      sampling: {},
      elicitation: {},
    });
    const sampled: unknown[] = [];
    host.setRequestHandler('sampling/createMessage', async (request) => {
      sampled.push(request.params.messages);
      return { model: 'test-model', role: 'assistant', content: { type: 'text', text: 'sampled!' } };
    });
    host.setRequestHandler('elicitation/create', async () => ({
      action: 'accept',
      content: { name: 'Ada' },
    }));
    const tools = (await host.listTools()).tools.map((t) => t.name);
    expect(tools).toEqual(
      expect.arrayContaining(['trigger-sampling-request', 'trigger-elicitation-request']),
    );
    const sample = (await host.callTool({
      name: 'trigger-sampling-request',
      arguments: { prompt: 'say hi', maxTokens: 10 },
    })) as CallToolResult;
    expect(text(sample)).toContain('sampled!');
    expect(sampled).toHaveLength(1);
    const elicit = (await host.callTool({
      name: 'trigger-elicitation-request',
      arguments: {},
    })) as CallToolResult;
    expect(text(elicit)).toContain('Ada');
  });

  it('connect: a Streamable HTTP upstream on 2025-11-25 asks the same way', async () => {
    const upstream = await startAskingHttpServer();
    closing.push(upstream);
    const host = await modernHost(['connect', upstream.url], { elicitation: {} });
    host.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { ok: true } }));
    const result = (await host.callTool({ name: 'confirm', arguments: {} })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(upstream.answers).toEqual([{ action: 'accept', content: { ok: true } }]);
    expect(upstream.calls()).toBe(1);
  });
});
