import { createFakeClock } from '@mcp-resilience/middleware/testing';
import { Client, type ClientOptions, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type CallToolResult, ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseGatewayConfig } from './gateway/loadGatewayConfig.js';
import { type Gateway, type GatewayOptions, startGateway } from './gateway/startGateway.js';
import { askingStdio } from './test-support/askingStdio.js';
import { chaosStdio, everything } from './test-support/commands.js';
import { startGatewayProcess } from './test-support/gatewayProcess.js';
import { expectInvalidOnce } from './test-support/hostExpectations.js';
import {
  ACCEPT,
  answerElicitations,
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
 * The gateway between real SDK v2 hosts pinned to 2026-07-28 (over Streamable HTTP, no session) and real SDK v1
 * upstreams (stdio and Streamable HTTP) and `server-everything`, whose tools ask the client during the call: the
 * upstream's server-to-client requests reach the host whose call it is as `input_required` results, and the
 * host's repeat (a new HTTP request) answers them and waits on the same upstream call.
 */
const TOKEN = 'gateway-rounds-token-0123';
const auth = { headers: { Authorization: `Bearer ${TOKEN}` } };
const closing: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  await Promise.allSettled(closing.splice(0).map((c) => c.close()));
});

type Capabilities = NonNullable<ClientOptions['capabilities']>;

async function gatewayOf(
  servers: Record<string, object>,
  options: Partial<GatewayOptions> = {},
): Promise<Gateway> {
  const config = parseGatewayConfig({ mcpServers: servers }, 'rounds-test.json');
  return startGateway({ config, port: 0, token: TOKEN, ...options });
}

/** `mcp-resilience gateway` as a process (the CLI's flags), closed after the test. */
async function gatewayProcess(servers: Record<string, object>, flags: string[]): Promise<Gateway> {
  const { gateway } = await startGatewayProcess(servers, flags, TOKEN);
  closing.push(gateway);
  return gateway;
}

async function modernHost(
  gateway: Gateway,
  server: string,
  capabilities: Capabilities = {},
  extra: Partial<ClientOptions> = {},
): Promise<Client> {
  const host = new Client(
    { name: 'test-host-v2', version: '1.0.0' },
    { capabilities, versionNegotiation: { mode: { pin: '2026-07-28' } }, ...extra },
  );
  await host.connect(
    new StreamableHTTPClientTransport(new URL(`${gateway.url}/${server}/mcp`), { requestInit: auth }),
  );
  closing.push(host);
  return host;
}

/** A host that answers every elicitation with `content` (the SDK answers the round and repeats by itself). */
async function answering(gateway: Gateway, server: string, content: Record<string, boolean> = { ok: true }) {
  const host = await modernHost(gateway, server, { elicitation: {} });
  return { host, asked: answerElicitations(host, content) };
}

/** A host in the SDK v2's manual mode: an `input_required` result is handed back, not fulfilled. */
const manualHost = (gateway: Gateway, server: string) =>
  modernHost(gateway, server, { elicitation: {} }, { inputRequired: { autoFulfill: false } });

describe('gateway: a 2025-era upstream asks a 2026-07-28 host during its call', () => {
  const stdio = askingStdio();
  /** The upstream's events after the first `before`. */
  const eventsSince = (before: number) =>
    stdio
      .events()
      .slice(before)
      .map((e) => e.event);
  let http: Awaited<ReturnType<typeof startAskingHttpServer>>;
  let gateway: Gateway;
  beforeAll(async () => {
    http = await startAskingHttpServer();
    gateway = await gatewayOf({
      asking: { command: stdio.command, args: stdio.args },
      http: { url: http.url },
      everything: everything(),
    });
  });
  afterAll(async () => {
    await gateway?.close();
    await http?.close();
  });

  it('elicitation/create crosses as an input_required round; the repeat continues the same upstream call', async () => {
    await expectElicitationCrosses(await modernHost(gateway, 'asking', { elicitation: {} }), stdio.events);
  });

  it('sampling/createMessage crosses the same way', async () => {
    await expectSamplingCrosses(await modernHost(gateway, 'asking', { sampling: {} }), stdio.events);
  });

  it('a Streamable HTTP upstream on 2025-11-25 asks the same way', async () => {
    const { host } = await answering(gateway, 'http');
    const result = (await host.callTool({ name: 'confirm', arguments: {} })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(http.answers).toEqual([ACCEPT]);
    expect(http.calls()).toBe(1);
  });

  it("server-everything's sampling and elicitation tools answer through the host's rounds", async () => {
    await expectEverythingRounds(await modernHost(gateway, 'everything', { sampling: {}, elicitation: {} }));
  });

  it("the round carries a random requestState; a repeat of a completed, unknown or other server's state gets -32602, nothing sent", async () => {
    const host = await manualHost(gateway, 'asking');
    const before = stdio.events().length;
    const round = (await manual(host, { name: 'confirm', arguments: {} })) as Round;
    expect(round.resultType).toBe('input_required');
    expect(round.requestState).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    // Another server's path does not know it.
    const other = await manualHost(gateway, 'http');
    await expect(repeat(other, 'confirm', round, ACCEPT)).rejects.toThrow(/unknown requestState/);
    const done = (await repeat(host, 'confirm', round, ACCEPT)) as CallToolResult;
    expect(text(done)).toContain('answer:');
    await expect(repeat(host, 'confirm', round, ACCEPT)).rejects.toThrow(/unknown requestState/);
    await expect(manual(host, { name: 'confirm', arguments: {}, requestState: 'not-given' })).rejects.toThrow(
      /unknown requestState/,
    );
    expect(eventsSince(before)).toEqual(['called', 'answered']);
    expect(http.calls()).toBe(1);
  });

  it('a host that did not declare the capability gets the request refused to the upstream', async () => {
    const host = await modernHost(gateway, 'asking', { sampling: {} });
    const before = stdio.events().length;
    const result = (await host.callTool({ name: 'confirm', arguments: {} })) as CallToolResult;
    expect(result.isError).toBe(true);
    const events = stdio.events().slice(before);
    expect(events.map((e) => e.event)).toEqual(['called', 'refused']);
    expect(events[1]?.detail).toMatch(/"elicitation" capability, which the host did not declare/);
    // That refusal is no other host's: an identical call of a host with the capability gets its round.
    const { host: able, asked } = await answering(gateway, 'asking');
    const done = (await able.callTool({ name: 'confirm', arguments: {} })) as CallToolResult;
    expect(text(done)).toContain('answer:');
    expect(asked).toHaveLength(1);
    expect(eventsSince(before)).toEqual(['called', 'refused', 'called', 'answered']);
  });

  it("a failure of a call that asked no one still answers the 2026-07-28 hosts' repeats (their shared memory)", async () => {
    const chaos = chaosStdio({ faults: [{ kind: 'invalid_params', tool: 'search', mode: 'error' }] });
    const shared = await gatewayOf({ chaos: { command: chaos.command, args: chaos.args } });
    closing.push(shared);
    const host = await modernHost(shared, 'chaos', { elicitation: {} });
    await expectInvalidOnce(
      (params) => host.callTool(params),
      () => chaos.entries().filter((e) => e.tool === 'search').length,
    );
  });

  it('with calls of two hosts in flight on the upstream, the request is refused, naming why; one call gets it', async () => {
    const waiting = await manualHost(gateway, 'asking');
    const before = stdio.events().length;
    const round = (await manual(waiting, { name: 'confirm_or_wait', arguments: {} })) as Round;
    const { host: other, asked } = await answering(gateway, 'asking');
    const refused = (await other.callTool({ name: 'confirm', arguments: {} })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(asked).toEqual([]);
    // That refusal is no other host's answer: a third host's identical call goes upstream (refused again, as two
    // calls are still in flight), not answered from memory.
    const { host: third } = await answering(gateway, 'asking');
    expect(((await third.callTool({ name: 'confirm', arguments: {} })) as CallToolResult).isError).toBe(true);
    const done = (await repeat(waiting, 'confirm_or_wait', round, ACCEPT)) as CallToolResult;
    expect(text(done)).toContain('answer:');
    const events = stdio.events().slice(before);
    expect(events.map((e) => `${e.tool} ${e.event}`)).toEqual([
      'confirm_or_wait called',
      'confirm called',
      'confirm refused',
      'confirm called',
      'confirm refused',
      'confirm_or_wait answered',
    ]);
    expect(events[2]?.detail).toMatch(/2 hosts share this upstream and have calls in flight/);
  });

  it('a 2025-11-25 session gets the request itself, as before, when it declared the capability', async () => {
    const host = new ClientV1({ name: 'test-host', version: '1.0.0' }, { capabilities: { elicitation: {} } });
    host.setRequestHandler(ElicitRequestSchema, async () => ACCEPT);
    await host.connect(new HttpV1(new URL(`${gateway.url}/asking/mcp`), { requestInit: auth }));
    closing.push(host);
    const before = stdio.events().length;
    const result = (await host.callTool({ name: 'confirm', arguments: {} })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(eventsSince(before)).toEqual(['called', 'answered']);
  });
});

describe('gateway: the bounds of the rounds', () => {
  it('a round not repeated within --input-round-timeout-ms is refused upstream, the call cancelled, the state unknown', async () => {
    const stdio = askingStdio();
    const gateway = await gatewayProcess({ asking: { command: stdio.command, args: stdio.args } }, [
      '--input-round-timeout-ms',
      '300',
    ]);
    const host = await manualHost(gateway, 'asking');
    const round = (await manual(host, { name: 'confirm_or_wait', arguments: {} })) as Round;
    await waitFor('the upstream call cancelled', () =>
      of(stdio.events(), 'confirm_or_wait').includes('cancelled') ? true : undefined,
    );
    expect(of(stdio.events(), 'confirm_or_wait')).toEqual(['called', 'refused', 'cancelled']);
    expect(stdio.events().find((e) => e.event === 'refused')?.detail).toMatch(/within 300 ms/);
    await expect(repeat(host, 'confirm_or_wait', round, ACCEPT)).rejects.toThrow(/unknown requestState/);
  });

  it("a refusal for another host's call in flight is not remembered: once that call ended, the same call of the same host goes upstream and succeeds", async () => {
    const stdio = askingStdio();
    const clock = createFakeClock();
    const gateway = await gatewayOf(
      { asking: { command: stdio.command, args: stdio.args } },
      { clock, inputRoundTimeoutMs: 1000 },
    );
    closing.push(gateway);
    const session = new ClientV1(
      { name: 'test-host', version: '1.0.0' },
      { capabilities: { elicitation: {} } },
    );
    session.setRequestHandler(ElicitRequestSchema, async () => ACCEPT);
    await session.connect(new HttpV1(new URL(`${gateway.url}/asking/mcp`), { requestInit: auth }));
    closing.push(session);
    const { host: modern, asked } = await answering(gateway, 'asking');
    const waiting = await manualHost(gateway, 'asking');
    await manual(waiting, { name: 'confirm_or_wait', arguments: {} });
    // A 2025-11-25 session (a memory of its own) and a 2026-07-28 host are refused while that call is pending.
    const call = { name: 'confirm', arguments: {} };
    expect(((await session.callTool(call)) as CallToolResult).isError).toBe(true);
    expect(((await modern.callTool(call)) as CallToolResult).isError).toBe(true);
    // That call ends without a success (which would have cleared every memory): its round times out.
    await clock.advance(1000);
    await waitFor('the pending call cancelled', () =>
      of(stdio.events(), 'confirm_or_wait').includes('cancelled') ? true : undefined,
    );
    // The moment passed: each one's identical repeat runs upstream and gets the round.
    expect(text((await session.callTool(call)) as CallToolResult)).toContain('answer:');
    expect(text((await modern.callTool(call)) as CallToolResult)).toContain('answer:');
    expect(asked).toHaveLength(1);
    expect(stdio.events().map((e) => `${e.tool} ${e.event}`)).toEqual([
      'confirm_or_wait called',
      'confirm called',
      'confirm refused',
      'confirm called',
      'confirm refused',
      'confirm_or_wait refused',
      'confirm_or_wait cancelled',
      'confirm called',
      'confirm answered',
      'confirm called',
      'confirm answered',
    ]);
    expect(stdio.events()[2]?.detail).toMatch(/2 hosts share this upstream and have calls in flight/);
  });

  it('at most maxInputRounds calls with rounds pending over all servers; beyond, refused naming the limit', async () => {
    const [one, two] = [askingStdio(), askingStdio()];
    const gateway = await gatewayOf(
      { one: { command: one.command, args: one.args }, two: { command: two.command, args: two.args } },
      { maxInputRounds: 1 },
    );
    closing.push(gateway);
    const waiting = await manualHost(gateway, 'one');
    const round = (await manual(waiting, { name: 'confirm_or_wait', arguments: {} })) as Round;
    const { host } = await answering(gateway, 'two');
    const refused = (await host.callTool({ name: 'confirm', arguments: {} })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(two.events().find((e) => e.event === 'refused')?.detail).toMatch(
      /1 input rounds are pending on this gateway \(the limit, maxInputRounds\)/,
    );
    await repeat(waiting, 'confirm_or_wait', round, ACCEPT);
    // The slot is given back when the call ends, and the refusal was the moment's, not remembered: the same
    // host's identical call goes upstream and gets its round.
    const result = (await host.callTool({ name: 'confirm', arguments: {} })) as CallToolResult;
    expect(text(result)).toContain('answer:');
    expect(of(two.events(), 'confirm')).toEqual(['called', 'refused', 'called', 'answered']);
  });
});
