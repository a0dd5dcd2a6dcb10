import { createFakeClock } from '@mcp-resilience/middleware/testing';
import { describe, expect, it } from 'vitest';
import { InputRounds } from './InputRounds.js';

/**
 * The rounds of one host's calls, on a fake clock: the upstream's requests during a call become the call's
 * `input_required` turns; the repeat answers them and the same call goes on.
 */
const ELICIT = { method: 'elicitation/create', params: { message: 'Proceed?' } };
const SAMPLE = { method: 'sampling/createMessage', params: { maxTokens: 1 } };
const CAPABLE = { elicitation: {}, sampling: {} };

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
    (error: unknown) => error as { code?: number; message: string },
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
    const elicited = rounds.link.request(ELICIT, { signal, relatedRequestId: call.id() });
    const round = (await first).result as Round;
    void rounds.resume(round.requestState, {}, new AbortController().signal);
    await expect(elicited).rejects.toThrow(/carried no response for "elicitation_create_1"/);
    await expect(rounds.link.request(ELICIT, { signal })).rejects.toThrow(/not related to exactly one call/);
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
});
