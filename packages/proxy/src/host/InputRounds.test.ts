import { createFakeClock } from '@mcp-resilience/middleware/testing';
import { describe, expect, it } from 'vitest';
import type { HostLink } from '../upstream/HostLink.js';
import { InputRounds } from './InputRounds.js';
import { RoundLimit } from './RoundLimit.js';

/**
 * The rounds of one host's calls, on a fake clock: the upstream's requests during a call become the call's
 * `input_required` turns; the repeat answers them and the same call goes on.
 */
const ELICIT = { method: 'elicitation/create', params: { message: 'Proceed?' } };
const SAMPLE = { method: 'sampling/createMessage', params: { maxTokens: 1 } };
const CAPABLE = { elicitation: {}, sampling: {} };
const ROOTS = { method: 'roots/list' };

/** A call whose upstream side is driven by the test: `finish` settles it, `signal` is what it was sent with. */
function upstreamCall() {
  let finish: (result: Record<string, unknown>) => void = () => {};
  let id = '';
  let signal: AbortSignal | undefined;
  const send = (s: AbortSignal, callId: string) => {
    signal = s;
    id = callId;
    return new Promise<Record<string, unknown>>((resolve) => {
      finish = resolve;
    });
  };
  return { send, finish: (r: Record<string, unknown>) => finish(r), id: () => id, signal: () => signal };
}

/** The error `promise` rejects with, caught at once (a fake clock may reject it before the test awaits it). */
const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as { code?: number; message: string; momentary?: boolean },
  );

type Round = { resultType: string; inputRequests: Record<string, unknown>; requestState: string };

describe('InputRounds', () => {
  it('embeds the requests of a call in one round; the repeat answers each, and the call result goes to it', async () => {
    const rounds = new InputRounds({ clock: createFakeClock() });
    const call = upstreamCall();
    const first = rounds.start(CAPABLE, new AbortController().signal, call.send);
    const elicited = rounds.link.request(ELICIT, {
      signal: new AbortController().signal,
      relatedRequestId: call.id(),
    });
    const round = (await first).result as Round;
    expect(round.resultType).toBe('input_required');
    expect(Object.values(round.inputRequests)).toEqual([ELICIT]);
    // A request while no host request waits is queued: the repeat gets it as the next round, at once.
    const sampled = rounds.link.request(SAMPLE, {
      signal: new AbortController().signal,
      relatedRequestId: call.id(),
    });
    const [key] = Object.keys(round.inputRequests);
    const second = (
      await rounds.resume(
        round.requestState,
        { [key as string]: { action: 'accept' } },
        new AbortController().signal,
      )
    ).result as Round;
    await expect(elicited).resolves.toEqual({ action: 'accept' });
    expect(Object.values(second.inputRequests)).toEqual([SAMPLE]);
    expect(second.requestState).toBe(round.requestState);
    const [next] = Object.keys(second.inputRequests);
    const last = rounds.resume(
      second.requestState,
      { [next as string]: { model: 'm' } },
      new AbortController().signal,
    );
    await expect(sampled).resolves.toEqual({ model: 'm' });
    call.finish({ content: [] });
    await expect(last).resolves.toEqual({ kind: 'result', result: { content: [] } });
    expect(rounds.owns(round.requestState)).toBe(false);
  });

  it('refuses a request the repeat did not answer, and one the host has no capability for', async () => {
    const rounds = new InputRounds({ clock: createFakeClock() });
    const call = upstreamCall();
    const first = rounds.start({ elicitation: {} }, new AbortController().signal, call.send);
    const signal = new AbortController().signal;
    const refused = await failure(rounds.link.request(SAMPLE, { signal, relatedRequestId: call.id() }));
    expect(refused?.code).toBe(-32601);
    expect(refused?.message).toContain('"sampling" capability, which the host did not declare');
    // What the host declared, not the moment: a failure the model's repeat may be answered with.
    expect(refused?.momentary).toBe(false);
    const elicited = rounds.link.request(ELICIT, { signal, relatedRequestId: call.id() });
    const round = (await first).result as Round;
    void rounds.resume(round.requestState, {}, new AbortController().signal);
    await expect(elicited).rejects.toThrow(/carried no response for "elicitation_create_1"/);
    const unrelated = await failure(rounds.link.request(ELICIT, { signal }));
    expect(unrelated?.message).toMatch(/not related to exactly one call/);
    // Which calls are in flight is the moment's.
    expect(unrelated?.momentary).toBe(true);
  });

  it('a round not repeated in time is refused to the upstream and the call cancelled; its state is then unknown', async () => {
    const clock = createFakeClock();
    const rounds = new InputRounds({ clock, inputRoundTimeoutMs: 1000 });
    const call = upstreamCall();
    const first = rounds.start(CAPABLE, new AbortController().signal, call.send);
    const elicited = failure(
      rounds.link.request(ELICIT, { signal: new AbortController().signal, relatedRequestId: call.id() }),
    );
    const round = (await first).result as Round;
    await clock.advance(999);
    expect(call.signal()?.aborted).toBe(false);
    await clock.advance(1);
    expect((await elicited)?.message).toMatch(/did not repeat the call within 1000 ms/);
    expect((await elicited)?.momentary).toBe(true);
    expect(call.signal()?.aborted).toBe(true);
    const late = await failure(rounds.resume(round.requestState, {}, new AbortController().signal));
    expect(late?.code).toBe(-32602);
    expect(late?.message).toContain('unknown requestState');
  });

  it("the host's cancellation of the request that waits cancels the upstream call", async () => {
    const rounds = new InputRounds({ clock: createFakeClock() });
    const call = upstreamCall();
    const host = new AbortController();
    void rounds.start(CAPABLE, host.signal, call.send);
    host.abort();
    expect(call.signal()?.aborted).toBe(true);
  });

  it('names the option when the timeout is not a positive number', () => {
    expect(() => new InputRounds({ inputRoundTimeoutMs: 0 })).toThrow(
      /inputRoundTimeoutMs must be a positive/,
    );
  });

  it('holds a roots/list asked with no call in flight; the next call carries it, and goes upstream once answered', async () => {
    const rounds = new InputRounds({ clock: createFakeClock() });
    const asked = rounds.link.request(ROOTS, { signal: new AbortController().signal });
    const call = upstreamCall();
    const first = rounds.start({ roots: {} }, new AbortController().signal, call.send);
    const round = (await first).result as Round;
    expect(Object.values(round.inputRequests)).toEqual([ROOTS]);
    // Not sent before the host answered: the upstream has the roots before the call.
    expect(call.id()).toBe('');
    const [key] = Object.keys(round.inputRequests);
    const next = rounds.resume(
      round.requestState,
      { [key as string]: { roots: [{ uri: 'file:///h' }] } },
      new AbortController().signal,
    );
    await expect(asked).resolves.toEqual({ roots: [{ uri: 'file:///h' }] });
    await waitUntil(() => call.id() !== '');
    call.finish({ content: [] });
    await expect(next).resolves.toEqual({ kind: 'result', result: { content: [] } });
  });

  it('refuses a held roots/list when no call comes in time, a second one while one is held, and for a call without roots', async () => {
    const clock = createFakeClock();
    const rounds = new InputRounds({ clock, inputRoundTimeoutMs: 1000 });
    const signal = new AbortController().signal;
    const held = failure(rounds.link.request(ROOTS, { signal }));
    const second = await failure(rounds.link.request(ROOTS, { signal }));
    expect(second?.message).toContain('one is held already');
    expect(second?.momentary).toBe(true);
    await clock.advance(1000);
    expect((await held)?.message).toMatch(/no call of the host came within 1000 ms/);
    expect((await held)?.momentary).toBe(true);
    const again = failure(rounds.link.request(ROOTS, { signal }));
    const call = upstreamCall();
    void rounds.start({ elicitation: {} }, new AbortController().signal, call.send);
    expect((await again)?.message).toContain('"roots" capability, which the host did not declare');
    expect((await again)?.momentary).toBe(false);
    // Sent at once: nothing to wait for.
    expect(call.id()).not.toBe('');
  });

  it('bounds the calls with rounds pending across instances sharing a limit, naming it', async () => {
    const limit = new RoundLimit(1);
    const [a, b] = [1, 2].map(() => new InputRounds({ clock: createFakeClock() }, { limit }));
    const [callA, callB] = [upstreamCall(), upstreamCall()];
    const signal = new AbortController().signal;
    void a?.start(CAPABLE, signal, callA.send);
    void b?.start(CAPABLE, signal, callB.send);
    void a?.link.request(ELICIT, { signal, relatedRequestId: callA.id() });
    // The same call asks again within its slot.
    void a?.link.request(SAMPLE, { signal, relatedRequestId: callA.id() });
    const refused = await failure(
      b?.link.request(ELICIT, { signal, relatedRequestId: callB.id() }) as Promise<unknown>,
    );
    expect(refused?.code).toBe(-32603);
    expect(refused?.message).toContain(
      '1 input rounds are pending on this gateway (the limit, maxInputRounds)',
    );
    expect(refused?.momentary).toBe(true);
    expect(limit.held).toBe(1);
    callA.finish({ content: [] });
    await waitUntil(() => limit.held === 0);
    void b?.link.request(ELICIT, { signal, relatedRequestId: callB.id() });
    expect(limit.held).toBe(1);
  });

  it('gives each call a host of its own when calls are hosts (the gateway), else the one link', () => {
    const clock = createFakeClock();
    const ids: string[] = [];
    const links = (rounds: InputRounds) => {
      const seen: HostLink[] = [];
      for (const _ of [1, 2]) {
        void rounds.start({}, new AbortController().signal, (_s, id, link) => {
          seen.push(link);
          ids.push(id);
          return new Promise(() => {});
        });
      }
      return seen;
    };
    const shared = new InputRounds({ clock }, { callsAreHosts: true });
    const [x, y] = links(shared);
    expect(x).not.toBe(y);
    // One memory for such hosts, and a call during which the upstream asked its host is not remembered in it.
    expect([x?.caller, x?.rememberFailure?.()]).toEqual([y?.caller, true]);
    const signal = new AbortController().signal;
    void failure(shared.link.request(SAMPLE, { signal, relatedRequestId: ids[0] as string }));
    expect([x?.rememberFailure?.(), y?.rememberFailure?.()]).toEqual([false, true]);
    const single = new InputRounds({ clock });
    expect(links(single)).toEqual([single.link, single.link]);
    expect(links(single)[0]).toBe(single.link);
  });

  it('names the option when the limit is not a positive integer', () => {
    expect(() => new RoundLimit(0)).toThrow(/maxInputRounds must be a positive integer, got 0/);
  });
});

/** Waits, a turn of the event loop at a time, until `done` holds (what the code under test does next). */
async function waitUntil(done: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !done(); i++) await new Promise((resolve) => setImmediate(resolve));
  expect(done()).toBe(true);
}
