import { Client, type ClientOptions } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { askingStdio } from './test-support/askingStdio.js';
import { everything, proxyCommand } from './test-support/commands.js';
import {
  ACCEPT,
  expectElicitationCrosses,
  expectEverythingRounds,
  expectSamplingCrosses,
  manual,
  of,
  type Round,
  repeat,
  text,
} from './test-support/modernRounds.js';
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

describe('wrap and connect: a 2025-11-25 upstream asks a 2026-07-28 host during its call', () => {
  it('elicitation/create crosses as an input_required round; the repeat continues the same upstream call', async () => {
    const upstream = askingStdio();
    const args = ['wrap', '--', upstream.command, ...upstream.args];
    await expectElicitationCrosses(await modernHost(args, { elicitation: {} }), upstream.events);
  });

  it('sampling/createMessage crosses the same way', async () => {
    const upstream = askingStdio();
    const args = ['wrap', '--', upstream.command, ...upstream.args];
    await expectSamplingCrosses(await modernHost(args, { sampling: {} }), upstream.events);
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
    const round = (await manual(host, { name: 'confirm_or_wait', arguments: {} })) as Round;
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
    await expect(repeat(host, 'confirm_or_wait', round)).rejects.toThrow(/unknown requestState/);
    // The moment passed, and nothing of it was remembered: the same call runs upstream again and completes.
    const again = (await manual(host, { name: 'confirm_or_wait', arguments: {} })) as Round;
    expect(text((await repeat(host, 'confirm_or_wait', again)) as CallToolResult)).toContain('answer:');
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
    expect(text((await repeat(host, 'confirm', again, ACCEPT, { again: true })) as CallToolResult)).toContain(
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
    const args = ['wrap', '--', server.command, ...server.args];
    await expectEverythingRounds(await modernHost(args, { sampling: {}, elicitation: {} }));
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
