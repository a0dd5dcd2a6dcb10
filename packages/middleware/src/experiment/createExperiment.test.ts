import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import type { ClassificationRule } from '../classify/ClassificationRule.js';
import { createResilience } from '../createResilience.js';
import { withResilience } from '../mcp/withResilience.js';
import { createOtelRecorder } from '../otel/createOtelRecorder.js';
import {
  ATTR_MCP_RESILIENCE_VARIANT,
  EVENT_MCP_RESILIENCE_SHADOW_CLASSIFICATION,
  METRIC_MCP_RESILIENCE_CALLS,
  METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITIONS,
  METRIC_MCP_RESILIENCE_FALLBACKS,
  METRIC_MCP_RESILIENCE_MODEL_RETRIES_AVOIDED,
  METRIC_MCP_RESILIENCE_MODEL_RETRIES_SAVED_TIME,
  METRIC_MCP_RESILIENCE_SHADOW_DISAGREEMENTS,
  SPAN_MCP_RESILIENCE_CALL,
} from '../otel/semconv.js';
import { createOtelHarness, type OtelHarness } from '../otel/test-support/otelHarness.js';
import { createMemoryRecorder, type MemoryRecorder } from '../record/createMemoryRecorder.js';
import { createFakeClock, type FakeClock } from '../testing/createFakeClock.js';
import type { ExperimentResilience } from './createExperiment.js';

const notFound = () => Object.assign(new Error('city not found: Atlantis'), { status: 503 });
/** The candidate's rule: a 503 that says "not found" will not succeed on retry. */
const notFoundRule: ClassificationRule = {
  name: 'not-found-503',
  message: /not found/,
  classify: { class: 'non_retryable', type: 'not_found' },
};

async function settle<T>(clock: FakeClock, promise: Promise<T>): Promise<T | Error> {
  const result = promise.then(
    (v) => v,
    (e: Error) => e,
  );
  await clock.runAll();
  return result;
}

describe('variants', () => {
  let clock: FakeClock;
  let recorder: MemoryRecorder;
  beforeEach(() => {
    clock = createFakeClock(0);
    recorder = createMemoryRecorder();
  });

  const experiment = (options: Record<string, unknown> = {}) =>
    createResilience({
      clock,
      recorder,
      jitter: 'none',
      variants: { control: {}, candidate: { rules: [notFoundRule] } },
      split: { control: 0.5, candidate: 0.5 },
      ...options,
    }) as ExperimentResilience;

  it.each([
    [{ variants: { control: {} } }, "option 'experiment.split' is required with `variants`"],
    [{ variants: {}, split: {} }, "option 'experiment.variants' must name at least one variant"],
    [{ variants: { 'bad name': {} }, split: { 'bad name': 1 } }, "invalid variant name 'bad name'"],
    [
      { variants: { a: {}, b: {} }, split: { a: 0.5, b: 0.6 } },
      "option 'experiment.split' weights must sum to 1, got 1.1",
    ],
    [{ variants: { a: {}, b: {} }, split: { a: 1 } }, "option 'experiment.split' has no weight for 'b'"],
    [
      { variants: { a: {} }, split: { a: 0.5, c: 0.5 } },
      "option 'experiment.split' names unknown variants 'c'",
    ],
    [
      { variants: { a: {}, b: {} }, split: { a: 1.5, b: -0.5 } },
      "option 'experiment.split.a' must be a number >= 0",
    ],
    [{ split: { a: 1 } }, "option 'experiment.split' needs `variants`"],
    [
      { variants: { a: {} }, split: { a: 1 }, variantKey: 'user' },
      "option 'experiment.variantKey' must be 'call'",
    ],
    [
      { variants: { a: { recorder: { record: () => {} } } }, split: { a: 1 } },
      "option 'experiment.variants.a.recorder' cannot be set",
    ],
    [
      { variants: { a: { maxAttempts: 0 } }, split: { a: 1 } },
      "option 'experiment.variants.a.retry.maxAttempts' must be",
    ],
    [{ shadowRules: 'x' }, "option 'experiment.shadowRules' must be an array of rules"],
    [
      { experiment: { variants: { a: { breaker: { breakMs: -1 } } }, split: { a: 1 } } },
      "option 'experiment.variants.a.breaker.breakMs' must be a number > 0",
    ],
    [
      { experiment: { variants: { a: { breaker: { breakMs: 9_000, maxBreakMs: 100 } } }, split: { a: 1 } } },
      "option 'experiment.variants.a.breaker.maxBreakMs' must be >= breaker.breakMs (9000)",
    ],
  ])('rejects bad experiment options: %j', (options, message) => {
    expect(() => createResilience({ recorder, ...(options as object) })).toThrow(message);
  });

  it('needs a recorder for a shadow', () => {
    expect(() => createResilience({ shadowRules: [] })).toThrow(
      "createResilience: option 'experiment.shadowRules' needs a `recorder`",
    );
  });

  it("with variantKey 'call', gives every run of calls its split share from the first call, in every process", async () => {
    // Issue #22: the demo's 15 pipelines (agents × servers) made ~70 calls each; a counter hash starting at 1
    // in every process gave all of them the same first draws, 12% of them in the 10% canary.
    const shares: number[] = [];
    for (const start of [0, 0.13, 0.5, 0.77, 0.999]) {
      clock.setRandom(start);
      const r = experiment({ split: { control: 0.9, candidate: 0.1 } });
      let candidates = 0;
      for (let n = 1; n <= 300; n++) {
        if (r.variantOf() === 'candidate') candidates++;
        // within two calls of the share at every count
        expect(Math.abs(candidates - n * 0.1), `start ${start}, call ${n}`).toBeLessThanOrEqual(2);
        if (n === 70) shares.push(candidates / n);
      }
    }
    const fleet = shares.reduce((a, b) => a + b, 0) / shares.length;
    expect(fleet).toBeGreaterThan(0.09);
    expect(fleet).toBeLessThan(0.11);
  });

  it('keeps one key in one variant, and splits keys by the weights', async () => {
    const r = experiment({ variantKey: 'endpoint', split: { control: 0.9, candidate: 0.1 } });
    const seen = new Map<string, Set<string>>();
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 2000; i++) {
        const endpoint = `conversation-${i}`;
        await r.execute(() => 'ok', { endpoint });
        const variant = recorder.ofType('call_started').at(-1)?.attributes[ATTR_MCP_RESILIENCE_VARIANT];
        seen.set(endpoint, (seen.get(endpoint) ?? new Set()).add(String(variant)));
        expect(r.variantOf({ endpoint })).toBe(variant);
      }
    }
    expect([...seen.values()].every((s) => s.size === 1)).toBe(true);
    const candidates = [...seen.values()].filter((s) => s.has('candidate')).length;
    // 2000 keys at 10%: 200 expected, sd ≈ 13.4; 4 sd either side.
    expect(candidates).toBeGreaterThan(146);
    expect(candidates).toBeLessThan(254);
  });

  it('assigns by a key function (a conversation id), falling back to the call when it throws', async () => {
    const r = experiment({
      variantKey: (call: { attributes?: Record<string, string> }) => {
        if (call.attributes?.conversation === 'boom') throw new Error('no conversation');
        return call.attributes?.conversation;
      },
    });
    const variants = new Set(
      Array.from({ length: 20 }, () => r.variantOf({ attributes: { conversation: 'c-42' } })),
    );
    expect(variants.size).toBe(1);
    expect(r.variants).toEqual(['control', 'candidate']);
    await expect(r.execute(() => 'ok', { attributes: { conversation: 'boom' } })).resolves.toBe('ok');
  });

  it('runs each variant with its own options: the candidate does not retry what its rule says is final', async () => {
    const r = experiment({ variantKey: 'endpoint', maxAttempts: 3 });
    const byVariant = { control: 'x', candidate: 'x' };
    for (let i = 0; byVariant.control === 'x' || byVariant.candidate === 'x'; i++) {
      const v = r.variantOf({ endpoint: `e${i}` }) as 'control' | 'candidate';
      byVariant[v] = `e${i}`;
    }
    for (const [variant, endpoint] of Object.entries(byVariant)) {
      await settle(
        clock,
        r.execute(() => Promise.reject(notFound()), { endpoint }),
      );
      const finished = recorder.ofType('call_finished').at(-1);
      expect(finished?.attributes[ATTR_MCP_RESILIENCE_VARIANT]).toBe(variant);
      expect(finished?.attempts).toBe(variant === 'control' ? 3 : 1);
      expect(finished?.classification?.type).toBe(variant === 'control' ? 'unavailable' : 'not_found');
    }
  });

  it('runs a call whose variant is already set on it, without a new draw', async () => {
    const r = experiment({ split: { control: 1, candidate: 0 } });
    const variantOf = (variant?: string) =>
      r
        .execute(() => 'ok', { endpoint: 'x', attributes: {}, ...(variant ? { variant } : {}) })
        .then(() => recorder.ofType('call_finished').at(-1)?.attributes[ATTR_MCP_RESILIENCE_VARIANT]);
    expect(await variantOf('candidate')).toBe('candidate');
    expect(await variantOf('unknown')).toBe('control');
    expect(await variantOf()).toBe('control');
    // An attribute is telemetry, not control: it does not pin the variant.
    await r.execute(() => 'ok', {
      endpoint: 'x',
      attributes: { [ATTR_MCP_RESILIENCE_VARIANT]: 'candidate' },
    });
    expect(recorder.ofType('call_finished').at(-1)?.attributes[ATTR_MCP_RESILIENCE_VARIANT]).toBe('control');
  });

  it('gives each variant its own breakers, labelled with the variant', async () => {
    const r = experiment({ variantKey: (c: { attributes?: Record<string, string> }) => c.attributes?.user });
    let candidateUser = '';
    for (let i = 0; !candidateUser; i++) {
      if (r.variantOf({ attributes: { user: `u${i}` } }) === 'candidate') candidateUser = `u${i}`;
    }
    const down = () => Promise.reject(Object.assign(new Error('down'), { status: 503 }));
    for (let i = 0; i < 5; i++) {
      await settle(
        clock,
        r.execute(down, { endpoint: 'api', attributes: { user: candidateUser }, maxAttempts: 1 }),
      );
    }
    // Only the candidate's pipeline has seen the endpoint; the control's breaker for it does not exist.
    const breakers = r.breakers().map((b) => [b.attributes[ATTR_MCP_RESILIENCE_VARIANT], b.endpoint]);
    expect(breakers).toEqual([['candidate', 'api']]);
    const transition = recorder.ofType('breaker_transition')[0];
    expect(transition?.to).toBe('open');
    const opener = recorder.ofType('call_finished').find((c) => c.callId === transition?.callId);
    expect(opener?.attributes[ATTR_MCP_RESILIENCE_VARIANT]).toBe('candidate');
    // The control still calls the endpoint: its own breaker is closed.
    let controlUser = '';
    for (let i = 0; !controlUser; i++) {
      if (r.variantOf({ attributes: { user: `u${i}` } }) === 'control') controlUser = `u${i}`;
    }
    await expect(r.execute(() => 'ok', { endpoint: 'api', attributes: { user: controlUser } })).resolves.toBe(
      'ok',
    );
  });
});

describe('shadow classification', () => {
  let clock: FakeClock;
  let recorder: MemoryRecorder;
  beforeEach(() => {
    clock = createFakeClock(0);
    recorder = createMemoryRecorder();
  });

  it('classifies every failed attempt again without acting, and records the verdict', async () => {
    const r = createResilience({ clock, recorder, jitter: 'none', shadowRules: [notFoundRule] });
    let attempts = 0;
    const result = await settle(
      clock,
      r.execute(() => {
        attempts++;
        return attempts < 3 ? Promise.reject(notFound()) : 'ok';
      }),
    );
    expect(result).toBe('ok');
    expect(attempts).toBe(3); // the acting classifier retried: the shadow decided nothing
    const verdicts = recorder.ofType('shadow_classified');
    expect(verdicts.map((v) => [v.attempt, v.classification.type, v.shadow.type, v.agrees])).toEqual([
      [1, 'unavailable', 'not_found', false],
      [2, 'unavailable', 'not_found', false],
    ]);
    expect(verdicts[0]?.shadow.source).toBe('rule:not-found-503');
    // Each verdict follows its attempt's attempt_finished.
    const types = recorder.events.map((e) => e.type);
    expect(types[types.indexOf('shadow_classified') - 1]).toBe('attempt_finished');
  });

  it('agrees when both say the same, and costs nothing on the success path', async () => {
    let asked = 0;
    const counting: ClassificationRule = () => {
      asked++;
      return undefined;
    };
    const r = createResilience({ clock, recorder, shadowRules: [counting], maxAttempts: 1 });
    for (let i = 0; i < 10; i++) await r.execute(() => 'ok');
    expect(asked).toBe(0);
    expect(recorder.ofType('shadow_classified')).toEqual([]);
    await settle(
      clock,
      r.execute(() => Promise.reject(Object.assign(new Error('bad'), { status: 400 }))),
    );
    expect(asked).toBe(1);
    expect(recorder.ofType('shadow_classified').map((v) => v.agrees)).toEqual([true]);
  });

  it('pairs a verdict only with the attempt it classified (an abort while waiting leaves none behind)', async () => {
    let asked = 0;
    const counting: ClassificationRule = () => {
      asked++;
      return undefined;
    };
    const controller = new AbortController();
    // Aborts as the retry is scheduled: the wait is interrupted, and its abort classified outside any attempt.
    const aborting = {
      record(event: Parameters<MemoryRecorder['record']>[0]) {
        recorder.record(event);
        if (event.type === 'retry_scheduled') controller.abort();
      },
    };
    const r = createResilience({
      clock,
      recorder: aborting,
      jitter: 'none',
      shadowRules: [counting, notFoundRule],
    });
    await settle(
      clock,
      r.execute(() => Promise.reject(notFound()), { signal: controller.signal }),
    );
    expect(asked).toBe(2); // the failed attempt, then the abort
    expect(recorder.ofType('call_finished')[0]?.attempts).toBe(1);
    await r.execute(() => 'ok');
    const verdicts = recorder.ofType('shadow_classified');
    expect(verdicts.map((v) => [v.callId, v.attempt, v.shadow.type])).toEqual([
      [recorder.ofType('call_started')[0]?.callId, 1, 'not_found'],
    ]);
  });

  it('assigns by session id, else by endpoint', () => {
    const r = createResilience({
      recorder,
      variants: { a: {}, b: {} },
      split: { a: 0.5, b: 0.5 },
      variantKey: 'session',
    }) as ExperimentResilience;
    const sessions = Array.from({ length: 40 }, (_, i) => `s-${i}`);
    const bySession = sessions.map((s) => r.variantOf({ endpoint: 'x', sessionId: s }));
    expect(new Set(bySession)).toEqual(new Set(['a', 'b'])); // sessions spread over both
    for (const [i, s] of sessions.entries()) {
      expect(r.variantOf({ endpoint: 'y', sessionId: s })).toBe(bySession[i]);
    }
  });

  it("assigns a call without a session per call (not all to the endpoint's variant), with a one-time warning", () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    try {
      const r = createResilience({
        recorder,
        variants: { control: {}, candidate: {} },
        split: { control: 0.9, candidate: 0.1 },
        variantKey: 'session',
      }) as ExperimentResilience;
      // A sessionless server (stdio, or the 2026-07-28 protocol): many calls to one endpoint, no mcp.session.id.
      const drawn = Array.from({ length: 400 }, () => r.variantOf({ endpoint: 'weather', attributes: {} }));
      const candidate = drawn.filter((v) => v === 'candidate').length;
      expect(candidate).toBeGreaterThan(20); // ~10%, not 0% or 100%
      expect(candidate).toBeLessThan(80);
      expect(warn).toHaveBeenCalledTimes(1);
      expect(warn.mock.calls[0]?.[0]).toContain('option \'variantKey: "session"\'');
      expect(warn.mock.calls[0]?.[0]).toContain('mcp.session.id');
      // Calls with a session stay sticky and warn nothing.
      const s = r.variantOf({ endpoint: 'weather', sessionId: 's-1' });
      for (let i = 0; i < 10; i++) {
        expect(r.variantOf({ endpoint: 'weather', sessionId: 's-1' })).toBe(s);
      }
      expect(warn).toHaveBeenCalledTimes(1);
    } finally {
      warn.mockRestore();
    }
  });

  it('never breaks the call when the shadow throws', async () => {
    const throwing: ClassificationRule = () => {
      throw new Error('shadow bug');
    };
    const hostile = [
      {
        get message(): RegExp {
          throw new Error('hostile rule');
        },
        classify: { class: 'non_retryable', type: 'not_found' },
      } as ClassificationRule,
    ];
    for (const shadowRules of [[throwing], hostile]) {
      const r = createResilience({ clock, recorder, jitter: 'none', shadowRules });
      let n = 0;
      const result = await settle(
        clock,
        r.execute(() => (++n === 1 ? Promise.reject(notFound()) : 'ok')),
      );
      expect(result).toBe('ok');
    }
  });
});

describe('experiment telemetry', () => {
  let otel: OtelHarness;
  let clock: FakeClock;
  beforeEach(() => {
    otel = createOtelHarness();
    clock = createFakeClock(1_700_000_000_000);
  });
  afterEach(() => otel.shutdown());

  it('puts the variant on every call metric and span, and counts shadow disagreements', async () => {
    const recorder = createOtelRecorder({
      tracerProvider: otel.tracerProvider,
      meterProvider: otel.meterProvider,
    });
    const r = createResilience({
      clock,
      recorder,
      jitter: 'none',
      breakerConsecutiveFailures: 2,
      variants: { control: {}, candidate: { maxAttempts: 1 } },
      split: { control: 0, candidate: 1 },
      shadowRules: [notFoundRule],
    });
    await settle(
      clock,
      r.execute(() => Promise.reject(notFound()), { endpoint: 'weather' }),
    );
    await settle(
      clock,
      r.execute(() => Promise.reject(notFound()), { endpoint: 'weather' }),
    );
    const calls = await otel.points(METRIC_MCP_RESILIENCE_CALLS);
    expect(calls.map((p) => p.attributes[ATTR_MCP_RESILIENCE_VARIANT])).toEqual(['candidate']);
    // Breaker metrics stay per endpoint: one breaker per server on the Breakers page, whatever the variants.
    const transitions = await otel.points(METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_TRANSITIONS);
    expect(transitions[0]?.attributes).toEqual({
      'mcp.resilience.server': 'weather',
      'mcp.resilience.circuit_breaker.from_state': 'closed',
      'mcp.resilience.circuit_breaker.to_state': 'open',
    });
    const disagreements = await otel.points(METRIC_MCP_RESILIENCE_SHADOW_DISAGREEMENTS);
    expect(disagreements).toEqual([
      {
        attributes: {
          'mcp.resilience.server': 'weather',
          'mcp.method.name': 'call',
          'mcp.resilience.variant': 'candidate',
          'mcp.resilience.error.type': 'unavailable',
          'mcp.resilience.error.class': 'retryable',
          'mcp.resilience.shadow.class': 'non_retryable',
          'mcp.resilience.shadow.type': 'not_found',
        },
        value: 2,
      },
    ]);
    const call = otel.spansNamed(SPAN_MCP_RESILIENCE_CALL)[0];
    expect(call?.attributes[ATTR_MCP_RESILIENCE_VARIANT]).toBe('candidate');
    const attempt = otel.spans().find((s) => s.parentSpanContext?.spanId === call?.spanContext().spanId);
    expect(attempt?.attributes[ATTR_MCP_RESILIENCE_VARIANT]).toBe('candidate');
    const shadowEvent = attempt?.events.find((e) => e.name === EVENT_MCP_RESILIENCE_SHADOW_CLASSIFICATION);
    expect(shadowEvent?.attributes).toMatchObject({
      'mcp.resilience.shadow.class': 'non_retryable',
      'mcp.resilience.shadow.type': 'not_found',
      'mcp.resilience.shadow.agrees': false,
    });
  });
});

describe('withResilience with variants', () => {
  const closers: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  it('runs tool calls of one session on one variant, over a real MCP server', async () => {
    const server = new McpServer({ name: 'weather', version: '1.0.0' });
    server.registerTool('forecast', { description: 'fails' }, () => ({
      content: [{ type: 'text', text: 'unknown city Atlantis' }],
      isError: true,
    }));
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const recorder = createMemoryRecorder();
    const client = withResilience(new Client({ name: 't', version: '1' }), {
      recorder,
      backoffBaseMs: 1,
      backoffMaxMs: 2,
      idempotency: 'assume-idempotent',
      variants: {
        control: {},
        candidate: {
          rules: [{ message: /unknown city/, classify: { class: 'non_retryable', type: 'invalid_params' } }],
        },
      },
      split: { control: 0, candidate: 1 },
      shadowRules: [],
    });
    closers.push(async () => {
      await client.close();
      await server.close();
    });
    await client.connect(clientSide);
    const result = await client.callTool({ name: 'forecast', arguments: {} });
    expect(result.isError).toBe(true);
    const finished = recorder.ofType('call_finished').filter((e) => e.operation === 'tools/call');
    expect(finished.map((e) => [e.attributes[ATTR_MCP_RESILIENCE_VARIANT], e.attempts])).toEqual([
      ['candidate', 1],
    ]);
    // The shadow (no rules of its own: the shared and MCP rules only) disagrees with the candidate's rule.
    const verdict = recorder.ofType('shadow_classified')[0];
    expect([verdict?.classification.type, verdict?.shadow.source, verdict?.agrees]).toEqual([
      'invalid_params',
      verdict?.shadow.source,
      false,
    ]);
    expect(verdict?.shadow.source).not.toBe('rule:0');
  });
});

describe('withResilience with variants: the negative cache and fallbacks per variant', () => {
  const closers: Array<() => Promise<void>> = [];
  let otel: OtelHarness;
  beforeEach(() => {
    otel = createOtelHarness();
  });
  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
    await otel.shutdown();
  });

  /** The failure both arms see: the tool's `isError` text. */
  const UNKNOWN_CITY = 'unknown city Atlantis';
  const finalRule: ClassificationRule = {
    name: 'final',
    message: /unknown city/,
    classify: { class: 'non_retryable', type: 'invalid_params' },
  };
  const retryRule: ClassificationRule = {
    name: 'retry',
    message: /unknown city/,
    // a tool's text says nothing about the server's health (as for the built-in rule): no breaker opens
    classify: { class: 'retryable', type: 'unavailable', healthNeutral: true },
  };
  const split = { control: 0.5, candidate: 0.5 };
  /** A key (for `variantKey`) that lands on `variant`. */
  const keyFor = (variant: string, prefix = 'k'): string => {
    const probe = createResilience({
      variants: { control: {}, candidate: {} },
      split,
      variantKey: (call) => call.operation,
    }) as ExperimentResilience;
    for (let i = 0; ; i++)
      if (probe.variantOf({ operation: `${prefix}${i}` }) === variant) return `${prefix}${i}`;
  };

  async function serve(
    name: string,
    handler: () => { content: Array<{ type: 'text'; text: string }>; isError?: boolean },
  ) {
    const server = new McpServer({ name, version: '1.0.0' });
    let requests = 0;
    server.registerTool('forecast', { description: 'forecast', inputSchema: { city: z.string() } }, () => {
      requests++;
      return handler();
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 't', version: '1' });
    await client.connect(clientSide);
    closers.push(async () => {
      await client.close();
      await server.close();
    });
    return { client, requests: () => requests };
  }

  it.each([
    ['candidate', 'control'],
    ['control', 'candidate'],
  ])(
    "a failure the %s calls final never answers the %s's repeats, over a real MCP server",
    async (strict, lenient) => {
      const { client: raw, requests } = await serve('weather', () => ({
        content: [{ type: 'text', text: UNKNOWN_CITY }],
        isError: true,
      }));
      let arm = keyFor(strict);
      const client = withResilience(raw, {
        recorder: createOtelRecorder({
          tracerProvider: otel.tracerProvider,
          meterProvider: otel.meterProvider,
        }),
        backoffBaseMs: 1,
        backoffMaxMs: 2,
        maxAttempts: 2,
        idempotency: 'assume-idempotent',
        variants: { [strict]: { rules: [finalRule] }, [lenient]: { rules: [retryRule] } },
        split,
        variantKey: () => arm,
      });
      const call = { name: 'forecast', arguments: { city: 'Atlantis' } };

      expect((await client.callTool(call)).isError).toBe(true); // strict: final at once, remembered
      expect(requests()).toBe(1);
      arm = keyFor(lenient);
      // The lenient arm retries what it calls retryable: its own call, not the strict arm's cached verdict.
      expect((await client.callTool(call)).isError).toBe(true);
      expect(requests()).toBe(3);
      arm = keyFor(strict);
      expect((await client.callTool(call)).isError).toBe(true); // the strict arm's repeat: from its cache
      expect(requests()).toBe(3);

      const calls = await otel.points(METRIC_MCP_RESILIENCE_CALLS);
      expect(
        calls
          .filter((p) => p.attributes['mcp.method.name'] === 'tools/call')
          .map((p) => [p.attributes[ATTR_MCP_RESILIENCE_VARIANT], p.value])
          .sort(),
      ).toEqual(
        [
          [lenient, 1],
          [strict, 1],
        ].sort(),
      );
      const avoided = await otel.points(METRIC_MCP_RESILIENCE_MODEL_RETRIES_AVOIDED);
      expect(avoided).toEqual([
        {
          attributes: {
            'mcp.resilience.server': 'weather',
            'mcp.method.name': 'tools/call',
            'gen_ai.tool.name': 'forecast',
            [ATTR_MCP_RESILIENCE_VARIANT]: strict,
            'mcp.resilience.error.type': 'invalid_params',
          },
          value: 1,
        },
      ]);
      const saved = await otel.points(METRIC_MCP_RESILIENCE_MODEL_RETRIES_SAVED_TIME);
      expect(saved.map((p) => p.attributes[ATTR_MCP_RESILIENCE_VARIANT])).toEqual([strict]);
    },
  );

  it("with variantKey 'call', a repeat is a new call: answered from the cache only on the variant that failed", async () => {
    const { client: raw, requests } = await serve('weather', () => ({
      content: [{ type: 'text', text: UNKNOWN_CITY }],
      isError: true,
    }));
    const recorder = createMemoryRecorder();
    const client = withResilience(raw, {
      recorder,
      backoffBaseMs: 1,
      backoffMaxMs: 2,
      maxAttempts: 2,
      idempotency: 'assume-idempotent',
      variants: { control: { rules: [retryRule] }, candidate: { rules: [finalRule] } },
      split,
      variantKey: 'call',
    });
    const call = { name: 'forecast', arguments: { city: 'Atlantis' } };
    for (let i = 0; i < 12; i++) await client.callTool(call);
    const finished = recorder.ofType('call_finished').filter((e) => e.operation === 'tools/call');
    const avoided = recorder.ofType('model_retry_avoided');
    // Every call is counted once: run on the variant it drew, or answered from that variant's cache.
    expect(finished.length + avoided.length).toBe(12);
    for (const e of avoided) expect(e.attributes[ATTR_MCP_RESILIENCE_VARIANT]).toBe('candidate');
    // The candidate failed once (final), its repeats after that came from its cache; the control always ran.
    const ran = finished.map((e) => e.attributes[ATTR_MCP_RESILIENCE_VARIANT]);
    expect(ran.filter((v) => v === 'candidate')).toHaveLength(1);
    const controlCalls = ran.filter((v) => v === 'control').length;
    expect(controlCalls).toBeGreaterThan(0);
    expect(avoided.length).toBeGreaterThan(0);
    expect(requests()).toBe(1 + 2 * controlCalls);
  });

  it('sends a failed call to the fallback on its own variant, and counts the fallback with it', async () => {
    const primary = await serve('weather', () => ({
      content: [{ type: 'text', text: UNKNOWN_CITY }],
      isError: true,
    }));
    const backup = await serve('backup', () => ({ content: [{ type: 'text', text: 'sunny' }] }));
    const recorder = createOtelRecorder({
      tracerProvider: otel.tracerProvider,
      meterProvider: otel.meterProvider,
    });
    // By endpoint, the backup alone would land on the other variant: the fallback call keeps the primary's.
    const primaryName = keyFor('candidate', 'weather-');
    const backupName = keyFor('control', 'backup-');
    const client = withResilience(primary.client, {
      recorder,
      server: primaryName,
      backoffBaseMs: 1,
      backoffMaxMs: 2,
      maxAttempts: 2,
      idempotency: 'assume-idempotent',
      variants: { control: {}, candidate: {} },
      rules: [retryRule],
      split,
      variantKey: 'endpoint',
      fallbacks: [{ client: backup.client, server: backupName }],
    });
    const result = await client.callTool({ name: 'forecast', arguments: { city: 'Atlantis' } });
    expect(result.content).toEqual([{ type: 'text', text: 'sunny' }]);
    expect([primary.requests(), backup.requests()]).toEqual([2, 1]);
    const fallbacks = await otel.points(METRIC_MCP_RESILIENCE_FALLBACKS);
    expect(fallbacks.map((p) => p.attributes)).toEqual([
      expect.objectContaining({
        'mcp.resilience.server': primaryName,
        'mcp.resilience.fallback.server': backupName,
        [ATTR_MCP_RESILIENCE_VARIANT]: 'candidate',
        'mcp.resilience.outcome': 'success',
      }),
    ]);
    const calls = await otel.points(METRIC_MCP_RESILIENCE_CALLS);
    expect(
      calls
        .filter((p) => p.attributes['mcp.method.name'] === 'tools/call')
        .map((p) => [p.attributes['mcp.resilience.server'], p.attributes[ATTR_MCP_RESILIENCE_VARIANT]])
        .sort(),
    ).toEqual([
      [backupName, 'candidate'],
      [primaryName, 'candidate'],
    ]);
  });
});
