import { describe, expect, it } from 'vitest';
import { observeFetch } from './observeFetch.js';

const respond =
  (status: number, headers: Record<string, string> = {}) =>
  async () =>
    new Response(status === 204 ? null : 'body', { status, headers });

describe('observeFetch', () => {
  it('records the status and the Retry-After (seconds) of a failed response, and returns it unchanged', async () => {
    const fetch = observeFetch(respond(429, { 'retry-after': '2' }), () => 1_000);
    const response = await fetch('http://127.0.0.1/mcp');
    expect(response.status).toBe(429);
    expect(await response.text()).toBe('body');
    expect(fetch.lastFailure()).toEqual({ seq: 1, status: 429, retryAfterMs: 2000, at: 1_000 });
  });

  it('reads an HTTP-date Retry-After relative to now', async () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    const fetch = observeFetch(respond(503, { 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }), () => now);
    await fetch('http://127.0.0.1/mcp');
    expect(fetch.lastFailure()?.retryAfterMs).toBe(30_000);
  });

  it('records a failure without Retry-After, ignores an unreadable one, and ignores successes', async () => {
    let next = respond(500);
    const fetch = observeFetch(() => next());
    await fetch('http://127.0.0.1/mcp');
    expect(fetch.lastFailure()).toMatchObject({ status: 500 });
    expect(fetch.lastFailure()).not.toHaveProperty('retryAfterMs');
    next = respond(429, { 'retry-after': 'soon' });
    await fetch('http://127.0.0.1/mcp');
    expect(fetch.lastFailure()).not.toHaveProperty('retryAfterMs');
    next = respond(200);
    await fetch('http://127.0.0.1/mcp');
    expect(fetch.lastFailure()?.seq).toBe(2);
  });

  it('lists the failures after a mark, so one attempt sees only its own', async () => {
    const fetch = observeFetch(respond(429, { 'retry-after': '1' }));
    await fetch('http://127.0.0.1/mcp');
    const mark = fetch.mark();
    expect(fetch.failuresSince(mark)).toEqual([]);
    await fetch('http://127.0.0.1/mcp');
    expect(fetch.failuresSince(mark).map((f) => f.seq)).toEqual([2]);
  });

  it('keeps the last 32 failures', async () => {
    const fetch = observeFetch(respond(503));
    for (let i = 0; i < 40; i++) await fetch('http://127.0.0.1/mcp');
    expect(fetch.failuresSince(0)).toHaveLength(32);
    expect(fetch.failuresSince(0)[0]?.seq).toBe(9);
  });

  it('passes network errors through', async () => {
    const fetch = observeFetch(async () => {
      throw new TypeError('fetch failed');
    });
    await expect(fetch('http://127.0.0.1/mcp')).rejects.toThrow('fetch failed');
    expect(fetch.lastFailure()).toBeUndefined();
  });
});
