import { afterEach, describe, expect, it, vi } from 'vitest';
import { createOtlpReceiver } from '@/lib/otlp/receiver';
import { otlpRequest } from './support/otlp-request';
import { watch } from './support/watch';

/*
 * The receiver's minimum body rate (OTLP_MIN_BODY_BYTES_PER_SEC over OTLP_BODY_RATE_WINDOW_MS) on fake timers
 * and a fake Date: each window is decided at its exact end, and a window the process itself was too busy to
 * measure (a late tick) is not held against the client. (slow-clients.test.ts checks the same rule end to end,
 * over a real socket and the real clock.)
 */

afterEach(() => {
  vi.useRealTimers();
});

/** A body the test hands out byte by byte: `push` makes bytes available to the reader, `end` finishes it. */
function trickle() {
  const queue: Array<Uint8Array | null> = [];
  let wake: (() => void) | undefined;
  const body: AsyncIterable<Uint8Array> = {
    async *[Symbol.asyncIterator]() {
      for (;;) {
        while (queue.length === 0) await new Promise<void>((r) => (wake = r));
        const next = queue.shift()!;
        if (next === null) return;
        yield next;
      }
    },
  };
  const put = (item: Uint8Array | null) => {
    queue.push(item);
    wake?.();
  };
  return { body, push: (text: string) => put(Buffer.from(text)), end: () => put(null) };
}

/** A receiver asking 1,000 bytes/s over 300 ms windows (300 bytes a window), with a 20 s body deadline. */
function receiver() {
  const sink = { metrics: () => ({ rejected: 0 }), traces: () => ({ rejected: 0 }) };
  return createOtlpReceiver({
    sink,
    maxBodyBytes: 64 * 1024,
    maxConcurrent: 4,
    bodyTimeoutMs: 20_000,
    minBodyBytesPerSecond: 1000,
    bodyRateWindowMs: 300,
  });
}

const fake = () =>
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });

describe('minimum body rate', () => {
  it('cuts a body bringing less than its share of a window at the end of that window, with 408 and the reason', async () => {
    fake();
    const t = trickle();
    const r = watch(receiver()('metrics', otlpRequest(t.body)));
    t.push('{');
    await vi.advanceTimersByTimeAsync(299);
    expect(r.done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(r.done).toBe(true);
    expect(r.value?.status).toBe(408);
    expect(r.value?.close).toBe(true);
    expect(JSON.parse(Buffer.from(r.value!.body).toString())).toMatchObject({
      message: 'body arriving slower than 1000 bytes/s (over 300 ms)',
    });
  });

  it('keeps reading a body that brings its share in every window, however long it takes', async () => {
    fake();
    const t = trickle();
    const r = watch(receiver()('metrics', otlpRequest(t.body)));
    t.push('{');
    // 10 windows (3 s), 300 bytes each: exactly the minimum
    for (let w = 0; w < 10; w++) {
      t.push(' '.repeat(300));
      await vi.advanceTimersByTimeAsync(300);
      expect(r.done).toBe(false);
    }
    t.push('}');
    t.end();
    await vi.advanceTimersByTimeAsync(0);
    expect(r.value?.status).toBe(200);
  });

  it('does not hold a window the process was too busy to measure (its tick came late) against the client', async () => {
    fake();
    const t = trickle();
    const r = watch(receiver()('metrics', otlpRequest(t.body)));
    t.push('{');
    // the process is busy for 1 s: the clock moves, the window's tick has not run
    vi.setSystemTime(Date.now() + 1000);
    await vi.advanceTimersByTimeAsync(300);
    expect(r.done).toBe(false);
    // the next window is on time and brings nothing: cut at its end
    await vi.advanceTimersByTimeAsync(299);
    expect(r.done).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(r.value?.status).toBe(408);
  });
});
