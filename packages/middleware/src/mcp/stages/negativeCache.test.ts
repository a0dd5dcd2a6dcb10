import { describe, expect, it } from 'vitest';
import { createResilience } from '../../createResilience.js';
import { ResilienceError } from '../../errors/ResilienceError.js';
import { ATTR_MCP_RESILIENCE_SERVER, ATTR_MCP_RESILIENCE_VARIANT } from '../../otel/semconv.js';
import { createMemoryRecorder } from '../../record/createMemoryRecorder.js';
import { createFakeClock } from '../../testing/createFakeClock.js';
import { type NegativeCacheSettings, negativeCache } from './negativeCache.js';
import { type Answer, failed, type Settled } from './Settled.js';
import { runStages, type StageCall } from './Stage.js';

const invalid = new ResilienceError(
  { class: 'non_retryable', type: 'invalid_params', execution: 'not_sent', source: 'test' },
  1,
  'non_retryable',
  undefined,
);
const setup = (options: NegativeCacheSettings = {}) => {
  const clock = createFakeClock(0);
  const recorder = createMemoryRecorder();
  const stage = negativeCache(options, createResilience({ clock, recorder }));
  const call = (args: unknown, variant?: string, caller?: string): StageCall => ({
    server: 's',
    tool: 't',
    arguments: args,
    options: {
      attributes: { [ATTR_MCP_RESILIENCE_SERVER]: 's' },
      ...(variant ? { variant } : {}),
      ...(caller ? { caller } : {}),
    },
    startedAt: clock.now(),
    safeToRepeat: false,
  });
  /** Runs the call through the stage: `outcome` settles it after `ms` unless the stage answers first. */
  const run = (c: StageCall, outcome: Settled, ms = 0) =>
    runStages([stage], c, async () => {
      await clock.advance(ms);
      return outcome;
    });
  return { stage, clock, recorder, call, run };
};
const asResult = (error: ResilienceError, result: unknown): Settled => ({
  kind: 'failed',
  error,
  answer: { kind: 'result', result } satisfies Answer,
});
const success = (changedState: boolean): Settled => ({ kind: 'value', value: 'ok', changedState });

describe('negativeCache', () => {
  it('answers a repeat with a copy of a result small enough to hold, and not a larger one', async () => {
    const { call, run } = setup();
    const small = { content: [{ type: 'text', text: 'bad city' }], isError: true };
    const large = { content: [{ type: 'text', text: 'x'.repeat(70_000) }], isError: true };
    await run(call({ a: 1 }), asResult(invalid, small));
    await run(call({ a: 2 }), asResult(invalid, large));
    const repeat = await run(call({ a: 1 }), success(false));
    expect(repeat).toMatchObject({ kind: 'failed', repeat: true, answer: { result: small } });
    expect(repeat.kind === 'failed' && repeat.answer.kind === 'result' && repeat.answer.result).not.toBe(
      small,
    );
    expect(await run(call({ a: 2 }), success(false))).toEqual(success(false));
  });

  it('remembers only non-retryable failures of the configured types, and forgets on a write or a tools change', async () => {
    const { stage, call, run, recorder } = setup({ negativeCacheTypes: ['invalid_params'] });
    const retryable = new ResilienceError(
      { class: 'retryable', type: 'unavailable', execution: 'not_sent', source: 'test' },
      3,
      'max_attempts',
      undefined,
    );
    const notFound = new ResilienceError(
      { class: 'non_retryable', type: 'not_found', execution: 'executed', source: 'test' },
      1,
      'non_retryable',
      undefined,
    );
    await run(call({ r: 1 }), failed(retryable));
    await run(call({ n: 1 }), failed(notFound));
    await run(call({ i: 1 }), failed(invalid), 7);
    await run(call({ f: 1 }), failed(invalid, true)); // a fallback's failure is not this server's verdict
    const probe = (args: unknown) => stage.before?.(call(args));
    expect(probe({ r: 1 })).toBeUndefined();
    expect(probe({ n: 1 })).toBeUndefined();
    expect(probe({ f: 1 })).toBeUndefined();
    expect(probe({ i: 1 })).toMatchObject({ error: invalid, answer: { kind: 'throw', error: invalid } });
    expect(recorder.ofType('model_retry_avoided').map((e) => e.savedMs)).toEqual([7]);
    await run(call({ x: 1 }), success(false));
    expect(probe({ i: 1 })).toBeDefined();
    await run(call({ x: 1 }), success(true));
    expect(probe({ i: 1 })).toBeUndefined();
    await run(call({ i: 1 }), failed(invalid));
    stage.toolsChanged?.();
    expect(probe({ i: 1 })).toBeUndefined();
  });

  it("keys by the call's variant: one arm's verdict never answers the other's repeat", async () => {
    const { stage, call, run, recorder } = setup();
    await run(call({ a: 1 }, 'candidate'), failed(invalid));
    expect(stage.before?.(call({ a: 1 }, 'control'))).toBeUndefined();
    expect(stage.before?.(call({ a: 1 }))).toBeUndefined();
    expect(stage.before?.(call({ a: 1 }, 'candidate'))).toMatchObject({ repeat: true });
    // The event's attributes come from the typed context.
    expect(recorder.ofType('model_retry_avoided').at(-1)?.attributes).toEqual({
      [ATTR_MCP_RESILIENCE_SERVER]: 's',
      [ATTR_MCP_RESILIENCE_VARIANT]: 'candidate',
    });
  });

  it("keys by the call's caller: one caller's failure never answers another's call; a write forgets all", async () => {
    const { stage, call, run } = setup();
    await run(call({ a: 1 }, undefined, 'alice'), failed(invalid));
    await run(call({ a: 1 }, 'candidate', 'bob'), failed(invalid));
    expect(stage.before?.(call({ a: 1 }, undefined, 'bob'))).toBeUndefined();
    expect(stage.before?.(call({ a: 1 }))).toBeUndefined();
    expect(stage.before?.(call({ a: 1 }, 'candidate', 'alice'))).toBeUndefined();
    expect(stage.before?.(call({ a: 1 }, undefined, 'alice'))).toMatchObject({ repeat: true });
    expect(stage.before?.(call({ a: 1 }, 'candidate', 'bob'))).toMatchObject({ repeat: true });
    await run(call({ w: 1 }, undefined, 'carol'), success(true));
    expect(stage.before?.(call({ a: 1 }, undefined, 'alice'))).toBeUndefined();
  });
});
