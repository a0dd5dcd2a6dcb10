import { describe, expect, it } from 'vitest';
import { parseRetryAfterHeader, retryAfterMsOf } from './retryAfter.js';

const NOW = Date.parse('2026-03-01T12:00:00Z');

describe('parseRetryAfterHeader', () => {
  it.each<[string, unknown, number | undefined]>([
    ['seconds', '120', 120_000],
    ['zero', '0', 0],
    ['padded seconds', '  5 ', 5000],
    ['decimal seconds', '1.5', 1500],
    ['a number', 2, 2000],
    ['a decimal number', 0.25, 250],
    ['IMF-fixdate', 'Sun, 01 Mar 2026 12:00:30 GMT', 30_000],
    ['RFC 850 date', 'Sunday, 01-Mar-26 12:01:00 GMT', 60_000],
    ['asctime date (GMT)', 'Sun Mar  1 12:00:10 2026', 10_000],
    ['ISO 8601 date', '2026-03-01T12:00:05Z', 5000],
    ['a date in the past gives 0', 'Sun, 01 Mar 2026 11:00:00 GMT', 0],
    ['negative seconds', '-5', undefined],
    ['a negative number', -1, undefined],
    ['NaN', Number.NaN, undefined],
    ['Infinity', Number.POSITIVE_INFINITY, undefined],
    ['garbage', 'soon', undefined],
    ['a lenient-Date.parse trap', 'hello 2020', undefined],
    ['seconds with a unit', '5s', undefined],
    ['exponent notation', '1e3', undefined],
    ['empty', '', undefined],
    ['a date with an impossible day', 'Sun, 45 Mar 2026 12:00:00 GMT', undefined],
    ['too long', '9'.repeat(400), undefined],
    ['null', null, undefined],
    ['an object', { seconds: 5 }, undefined],
  ])('%s', (_name, value, expected) => {
    expect(parseRetryAfterHeader(value, NOW)).toBe(expected);
  });

  it('uses Date.now() without an injected now', () => {
    const inOneMinute = new Date(Date.now() + 60_000).toUTCString();
    const delay = parseRetryAfterHeader(inOneMinute);
    expect(delay).toBeGreaterThan(55_000);
    expect(delay).toBeLessThanOrEqual(60_000);
  });
});

describe('retryAfterMsOf: message phrases', () => {
  it.each<[string, number | undefined]>([
    ['GitHub API rate limit exceeded. Retry after 37s.', 37_000],
    ['Retry after 37 seconds', 37_000],
    ['retry-after: 5', 5000],
    ['Retry-After: Sun, 01 Mar 2026 12:00:20 GMT', 20_000],
    ['Please try again in 20 seconds.', 20_000],
    ['Rate limit reached. Please try again in 1.5s.', 1500],
    ['Please try again in 1m30s.', 90_000],
    ['Please try again in 6ms.', 6],
    ['retry in 500ms', 500],
    ['retrying in 2 sec', 2000],
    ['wait 3 minutes', 180_000],
    ['please wait for 10 seconds', 10_000],
    ['wait 1 hour', 3_600_000],
    ['Wait before retrying.', undefined],
    ['wait 3 attempts', undefined],
    ['retry after a while', undefined],
    ['Timed out after 30s', undefined],
    ['no hint at all', undefined],
  ])('%s', (message, expected) => {
    expect(retryAfterMsOf(new Error(message), NOW)).toBe(expected);
  });
});

describe('retryAfterMsOf: structured values', () => {
  it.each<[string, unknown, number | undefined]>([
    ['retryAfterMs property', { retryAfterMs: 1234 }, 1234],
    ['retryAfter property in seconds', { retryAfter: 3 }, 3000],
    ['retryAfter property as a header string', { retryAfter: '4' }, 4000],
    ['plain headers, lower case', { headers: { 'retry-after': '2' } }, 2000],
    ['plain headers, canonical case', { headers: { 'Retry-After': '2' } }, 2000],
    ['plain headers, odd case', { headers: { 'RETRY-after': '2' } }, 2000],
    ['headers array value', { headers: { 'retry-after': ['6', '7'] } }, 6000],
    ['Headers object', { headers: new Headers({ 'Retry-After': '8' }) }, 8000],
    ['Map headers', { headers: new Map([['retry-after', '9']]) }, 9000],
    ['response.headers', { response: { status: 503, headers: { 'retry-after': '10' } } }, 10_000],
    ['retry-after-ms before retry-after', { headers: { 'retry-after': '10', 'retry-after-ms': '250' } }, 250],
    ['MCP data.retryAfter', { code: -32603, data: { retryAfter: 5 } }, 5000],
    ['MCP data.retryAfterMs', { code: -32603, data: { retryAfterMs: 700 } }, 700],
    ['in the cause chain', new Error('wrapped', { cause: { headers: { 'retry-after': '11' } } }), 11_000],
    ['structured beats a phrase', { message: 'retry after 99s', headers: { 'retry-after': '1' } }, 1000],
    [
      'a garbage header falls back to the phrase',
      { message: 'retry after 2s', headers: { 'retry-after': 'x' } },
      2000,
    ],
    ['negative retryAfterMs is ignored', { retryAfterMs: -5 }, undefined],
    [
      'a throwing Headers.get is ignored',
      {
        headers: {
          get: () => {
            throw new Error('x');
          },
          'retry-after': '3',
        },
      },
      3000,
    ],
    ['nothing', new Error('boom'), undefined],
    ['not an object', 17, undefined],
  ])('%s', (_name, error, expected) => {
    expect(retryAfterMsOf(error, NOW)).toBe(expected);
  });

  it('never throws on hostile values', () => {
    const hostile = new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
      },
    );
    expect(retryAfterMsOf(hostile, NOW)).toBeUndefined();
    expect(retryAfterMsOf({ headers: hostile }, NOW)).toBeUndefined();
  });
});
