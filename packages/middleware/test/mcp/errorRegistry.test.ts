import { type FaultPlan, type GroundTruthEntry, startChaosHttpServer } from '@mcp-resilience/chaos';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { afterEach, describe, expect, it } from 'vitest';
import { isResilienceError, type ResilienceError } from '../../src/errors/ResilienceError.js';
import { observeFetch, withResilience } from '../../src/mcp/index.js';
import { createMemoryRecorder } from '../../src/record/createMemoryRecorder.js';
import { chaosStdio, fast, httpTransport, newClient, tempDir } from './harness.js';

/**
 * The MCP error registry end to end: the chaos server answers the draft registry's codes (`mcp_error` faults) to a
 * real SDK client over a real transport, and the ground-truth log says what the server really executed.
 */
type Kind = 'http' | 'stdio';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

interface Setup {
  readonly mcp: Client;
  readonly recorder: ReturnType<typeof createMemoryRecorder>;
  /** Closes the client, then reads the server's log for `tool` (stdio: complete once the process exited). */
  entries(tool: string): Promise<Array<[string | null, boolean]>>;
}

async function setup(kind: Kind, plan: FaultPlan): Promise<Setup> {
  let transport: () => Transport;
  let log: () => readonly GroundTruthEntry[];
  const fetch = observeFetch();
  if (kind === 'http') {
    const http = await startChaosHttpServer({ plan, seed: 1 });
    cleanups.push(() => http.close());
    transport = () => httpTransport(http.url, fetch);
    log = () => http.log;
  } else {
    const { dir, cleanup } = tempDir();
    cleanups.push(cleanup);
    const stdio = chaosStdio(dir, plan);
    transport = stdio.transport;
    log = stdio.log;
  }
  const client = newClient();
  await client.connect(transport());
  const close = () => client.close().catch(() => {});
  cleanups.push(close);
  const recorder = createMemoryRecorder();
  const mcp = withResilience(client, {
    ...fast,
    server: 'registry',
    breakerScope: 'tool',
    recorder,
    ...(kind === 'http' ? { fetch } : {}),
  });
  await mcp.listTools();
  return {
    mcp,
    recorder,
    async entries(tool) {
      await close();
      return log()
        .filter((e) => e.tool === tool)
        .map((e) => [e.fault, e.executed]);
    },
  };
}

async function rejection(promise: Promise<unknown>): Promise<ResilienceError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isResilienceError(error)) throw new Error(`expected a ResilienceError, got ${String(error)}`);
  return error;
}

const ticket = { name: 'create_ticket', arguments: { title: 'printer on fire' } };
const search = { name: 'search', arguments: { query: 'mcp' } };

describe.each<Kind>(['http', 'stdio'])('the MCP error registry over %s', (kind) => {
  it('-32023 with data.retryAfterMs: waits at least that long, then re-sends even the destructive tool', async () => {
    const plan: FaultPlan = {
      faults: [
        { kind: 'mcp_error', tool: 'create_ticket', code: -32023, data: { retryAfterMs: 300 }, times: 1 },
      ],
    };
    const { mcp, recorder, entries } = await setup(kind, plan);

    const result = await mcp.callTool(ticket);
    expect(result.isError).toBeFalsy();
    const [failed] = recorder.ofType('failure_classified');
    expect(failed?.classification).toMatchObject({
      class: 'conditional',
      type: 'rate_limited',
      execution: 'not_sent',
      retryAfterMs: 300,
      source: 'mcp.protocol.rate_limited',
      healthNeutral: true,
    });
    expect(failed?.decision).toBe('wait');
    const [first, second] = recorder.ofType('attempt_started').filter((e) => e.operation === 'tools/call');
    expect(second!.time - first!.time).toBeGreaterThanOrEqual(300);
    expect(await entries('create_ticket')).toEqual([
      ['mcp_error', false],
      [null, true],
    ]);
  });

  it('data.notProcessed re-sends a non-idempotent call; without it, the same -32024 is not re-sent', async () => {
    const overloaded = { kind: 'mcp_error', tool: 'create_ticket', code: -32024, times: 1 } as const;
    const plan: FaultPlan = {
      faults: [
        { ...overloaded, name: 'not_processed', data: { reason: 'overloaded', notProcessed: true } },
        // `every: 2`: not the retry of the first call, the second call
        { ...overloaded, name: 'maybe_processed', data: { reason: 'overloaded' }, every: 2 },
      ],
    };
    const { mcp, recorder, entries } = await setup(kind, plan);

    expect((await mcp.callTool(ticket)).isError).toBeFalsy();
    expect(recorder.ofType('failure_classified')[0]).toMatchObject({
      decision: 'retry',
      classification: {
        class: 'retryable',
        type: 'unavailable',
        execution: 'not_sent',
        source: 'mcp.protocol.unavailable.overloaded.not_processed',
      },
    });

    const error = await rejection(mcp.callTool(ticket));
    expect(error).toMatchObject({ attempts: 1, reason: 'not_idempotent' });
    expect(error.classification).toMatchObject({
      type: 'unavailable',
      execution: 'unknown',
      source: 'mcp.protocol.unavailable.overloaded',
    });
    expect(await entries('create_ticket')).toEqual([
      ['not_processed', false],
      [null, true],
      ['maybe_processed', false],
    ]);
  });
});

describe('the MCP error registry over Streamable HTTP', () => {
  it('never re-sends -32025, requiresUserAction or an unknown reserved code; retries one with data.retryAfterMs', async () => {
    const searchFault = { kind: 'mcp_error', tool: 'search', times: 1 } as const;
    const plan: FaultPlan = {
      faults: [
        { ...searchFault, name: 'too_large', code: -32025 },
        {
          ...searchFault,
          name: 'user_action',
          code: -32023,
          data: { retryAfterMs: 10, requiresUserAction: true },
        },
        { ...searchFault, name: 'unknown', code: -32050 },
        { ...searchFault, name: 'unknown_delay', code: -32060, data: { retryAfterMs: 100 } },
      ],
    };
    const { mcp, recorder, entries } = await setup('http', plan);

    const tooLarge = await rejection(mcp.callTool(search));
    expect(tooLarge).toMatchObject({ attempts: 1, reason: 'condition_unmet' });
    expect(tooLarge.classification).toMatchObject({
      class: 'conditional',
      type: 'payload_too_large',
      source: 'mcp.protocol.request_too_large',
    });

    const userAction = await rejection(mcp.callTool(search));
    expect(userAction).toMatchObject({ attempts: 1, reason: 'non_retryable' });
    expect(userAction.classification).toMatchObject({
      class: 'non_retryable',
      type: 'user_action_required',
      source: 'mcp.protocol.rate_limited.requires_user_action',
    });

    const unknown = await rejection(mcp.callTool(search));
    expect(unknown).toMatchObject({ attempts: 1, reason: 'non_retryable' });
    expect(unknown.classification).toMatchObject({ type: 'unknown', source: 'mcp.protocol.reserved_code' });

    expect((await mcp.callTool(search)).isError).toBeFalsy();
    const delayed = recorder.ofType('retry_scheduled').at(-1);
    expect(delayed?.classification).toMatchObject({
      class: 'retryable',
      retryAfterMs: 100,
      source: 'mcp.protocol.reserved_code.retry_after',
    });
    expect(delayed?.delayMs).toBeGreaterThanOrEqual(100);
    expect(await entries('search')).toEqual([
      ['too_large', false],
      ['user_action', false],
      ['unknown', false],
      ['unknown_delay', false],
      [null, true],
    ]);
  });
});
