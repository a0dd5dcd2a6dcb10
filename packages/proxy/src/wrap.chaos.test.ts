import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { chaosStdio, proxyCommand } from './test-support/commands.js';
import { connectHost } from './test-support/connectHost.js';
import { classification, expectCancellationCrosses } from './test-support/hostExpectations.js';
import { waitFor } from './test-support/waitFor.js';

const clients: Client[] = [];
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
});

async function wrapChaos(plan: object, flags: string[] = []) {
  const chaos = chaosStdio(plan);
  const host = await connectHost(['wrap', ...flags, '--', chaos.command, ...chaos.args]);
  clients.push(host);
  const calls = (tool: string) => chaos.entries().filter((e) => e.method === 'tools/call' && e.tool === tool);
  return { host, chaos, calls };
}

describe('mcp-resilience wrap, in front of the chaos server (stdio)', () => {
  it('sends invalid arguments to the upstream once, and answers the model repeat without a request', async () => {
    const { host, calls } = await wrapChaos({
      faults: [{ kind: 'invalid_params', tool: 'search', mode: 'error' }],
    });
    const args = { name: 'search', arguments: { query: 'mcp' } };
    const first = (await host.callTool(args)) as CallToolResult;
    expect(first.isError).toBe(true);
    expect(classification(first)).toMatchObject({
      class: 'non_retryable',
      type: 'invalid_params',
      attempts: 1,
    });
    expect(calls('search')).toHaveLength(1);
    const repeat = (await host.callTool(args)) as CallToolResult;
    expect(repeat.isError).toBe(true);
    expect(calls('search')).toHaveLength(1);
  });

  it('chained layers (wrap in front of wrap) give the model one sentence, not two', async () => {
    const chaos = chaosStdio({ faults: [{ kind: 'invalid_params', tool: 'search', mode: 'result' }] });
    const inner = proxyCommand(['wrap', '--', chaos.command, ...chaos.args]);
    const host = await connectHost(['wrap', '--', inner.command, ...inner.args]);
    clients.push(host);
    const result = (await host.callTool({ name: 'search', arguments: { query: 'mcp' } })) as CallToolResult;
    expect(result.isError).toBe(true);
    const texts = (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '');
    expect(texts.filter((t) => t.includes('It was not retried'))).toHaveLength(1);
    expect(chaos.entries().filter((e) => e.method === 'tools/call')).toHaveLength(1);
  });

  it('survives an upstream crash: respawns it and retries a read-only tool', async () => {
    // Each chaos process counts on its own: the 2nd get_weather of a process crashes it.
    const { host, calls } = await wrapChaos({ faults: [{ kind: 'crash', tool: 'get_weather', every: 2 }] });
    const weather = { name: 'get_weather', arguments: { city: 'Paris' } };
    expect(((await host.callTool(weather)) as CallToolResult).isError).toBeFalsy();
    const afterCrash = (await host.callTool(weather)) as CallToolResult;
    expect(afterCrash.isError).toBeFalsy();
    expect(calls('get_weather').map((e) => e.fault)).toEqual([null, 'crash', null]);
  });

  it('does not repeat a crashed call of a destructive tool, and says why', async () => {
    const { host, calls } = await wrapChaos({ faults: [{ kind: 'crash', tool: 'create_ticket', times: 1 }] });
    const result = (await host.callTool({
      name: 'create_ticket',
      arguments: { title: 'x', description: 'y' },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(classification(result)).toMatchObject({ reason: 'not_idempotent' });
    expect(calls('create_ticket')).toHaveLength(1);
  });

  it('restarts a crashed upstream at once, not at the next request', async () => {
    const chaos = chaosStdio({ faults: [{ kind: 'crash', tool: 'create_ticket', times: 1 }] });
    const starts = join(mkdtempSync(join(tmpdir(), 'proxy-respawn-')), 'starts');
    const host = await connectHost([
      'wrap',
      '--',
      'sh',
      '-c',
      `echo x >> ${starts}; exec "$0" "$@"`,
      chaos.command,
      ...chaos.args,
    ]);
    clients.push(host);
    const startCount = () => readFileSync(starts, 'utf8').split('\n').length - 1;
    const ticket = { name: 'create_ticket', arguments: { title: 'x', description: 'y' } };
    const crashed = (await host.callTool(ticket)) as CallToolResult;
    expect(classification(crashed)).toMatchObject({ reason: 'not_idempotent', attempts: 1 });
    // (no count here: the restart, 100 ms after the crash, may come before the host has the answer on a loaded
    // machine; the call was not retried, so nothing but the proxy itself starts the child again)
    // No request after the crash: the child comes back by itself.
    await waitFor('the upstream to be started again', () => (startCount() === 2 ? true : undefined));
    // (each chaos process counts on its own: this one would crash on create_ticket too)
    const after = (await host.callTool({
      name: 'get_weather',
      arguments: { city: 'Paris' },
    })) as CallToolResult;
    expect(after.isError).toBeFalsy();
    expect(startCount()).toBe(2);
  });

  it('gives fast isError results for a dead upstream once its breaker is open, without starting it', async () => {
    // The first start runs the chaos server; every later start fails: the server is gone.
    const chaos = chaosStdio({ faults: [{ kind: 'crash', tool: 'get_weather' }] });
    const flag = join(mkdtempSync(join(tmpdir(), 'proxy-dead-')), 'started');
    const starts = join(dirname(flag), 'starts');
    const script = `echo x >> ${starts}; if [ -e ${flag} ]; then exit 1; fi; touch ${flag}; exec "$0" "$@"`;
    const host = await connectHost([
      'wrap',
      '--max-attempts',
      '2',
      '--backoff-base-ms',
      '10',
      '--breaker-consecutive-failures',
      '3',
      '--breaker-break-ms',
      '600000',
      '--breaker-max-break-ms',
      '600000',
      '--breaker-wait',
      'false',
      '--',
      'sh',
      '-c',
      script,
      chaos.command,
      ...chaos.args,
    ]);
    clients.push(host);
    const startCount = () => readFileSync(starts, 'utf8').split('\n').length - 1;
    const weather = { name: 'get_weather', arguments: { city: 'Paris' } };
    let result: CallToolResult = { content: [] };
    for (let i = 0; i < 6 && classification(result)?.reason !== 'circuit_open'; i++) {
      result = (await host.callTool(weather)) as CallToolResult;
      expect(result.isError).toBe(true);
    }
    expect(classification(result)).toMatchObject({ reason: 'circuit_open' });
    // A restart begun before the breaker opened is waited for by the next request; none begins after.
    await host.callTool(weather);
    const started = startCount();
    const fast = (await host.callTool(weather)) as CallToolResult;
    expect(fast.isError).toBe(true);
    expect(classification(fast)).toMatchObject({ reason: 'circuit_open' });
    expect(startCount()).toBe(started);
  });

  it('forwards progress, and the host cancellation reaches the upstream as notifications/cancelled', async () => {
    const { host, chaos } = await wrapChaos({ faults: [] });
    await expectCancellationCrosses(
      (params, options) => host.callTool(params, undefined, options),
      chaos.entries,
    );
  });
});
