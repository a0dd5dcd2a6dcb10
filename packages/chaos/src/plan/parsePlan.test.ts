import { describe, expect, it } from 'vitest';
import { PlanError } from './PlanError.js';
import { parsePlan } from './parsePlan.js';

const errorOf = (input: unknown) => {
  try {
    parsePlan(input);
  } catch (error) {
    expect(error).toBeInstanceOf(PlanError);
    return (error as PlanError).message;
  }
  throw new Error('expected a PlanError');
};

describe('parsePlan', () => {
  it('accepts YAML, JSON and objects', () => {
    const yaml =
      'unknownSession: 400\nfaults:\n  - kind: rate_limit\n    tool: [search]\n    retryAfter: 2\n';
    const expected = {
      unknownSession: 400,
      faults: [{ kind: 'rate_limit', tool: ['search'], retryAfter: 2 }],
    };
    expect(parsePlan(yaml)).toEqual(expected);
    expect(parsePlan(JSON.stringify(expected))).toEqual(expected);
    expect(parsePlan(expected)).toEqual(expected);
  });

  it('treats a missing fault list as no faults', () => {
    expect(parsePlan({})).toEqual({ faults: [] });
  });

  it('accepts every kind with all of its fields', () => {
    const when = {
      name: 'x',
      method: ['tools/call'],
      probability: 0.5,
      per: 'call',
      from: 0,
      to: 10,
      every: 2,
      times: 3,
    };
    const faults = [
      { kind: 'invalid_params', mode: 'error', message: 'bad' },
      { kind: 'tool_error', text: 'Service temporarily unavailable' },
      { kind: 'mcp_error', code: -32023, message: 'Rate limited', data: { retryAfterMs: 500 } },
      { kind: 'unauthorized' },
      { kind: 'forbidden' },
      { kind: 'rate_limit', retryAfter: 0 },
      { kind: 'http_error', status: 502, retryAfter: 5 },
      { kind: 'hang', delay: 100 },
      { kind: 'reset' },
      { kind: 'reset_after' },
      { kind: 'session_expired' },
      { kind: 'crash', exitCode: 3 },
      { kind: 'outage', mode: 'reset' },
      { kind: 'flapping', period: 1000, duty: 0.25, mode: 'unavailable' },
    ].map((fault) => ({ ...when, ...fault }));
    expect(parsePlan({ faults }).faults).toHaveLength(14);
  });

  it.each([
    [
      { faults: [{ kind: 'unauthorized', per: 'session' }] },
      'plan.faults[0].per: must be one of "request", "call", got "session"',
    ],
    [
      { faults: [{ kind: 'reset' }, { kind: 'reset' }, { kind: 'reset', probability: 2 }] },
      'plan.faults[2].probability: must be a number in [0, 1], got 2',
    ],
    [
      { faults: [{ kind: 'explode' }] },
      'plan.faults[0].kind: must be one of invalid_params, mcp_error, tool_error, unauthorized, forbidden, rate_limit, http_error, hang, reset, reset_after, stream_broken, session_expired, crash, outage, flapping, got "explode"',
    ],
    [{ faults: [{ probability: 1 }] }, 'plan.faults[0].kind: must be one of'],
    [
      { faults: [{ kind: 'reset', probabilty: 0.5 }] },
      'plan.faults[0].probabilty: unknown field; allowed: name, tool, method, probability, per, from, to, every, times',
    ],
    [{ faults: [{ kind: 'reset', retryAfter: 1 }] }, 'plan.faults[0].retryAfter: unknown field'],
    [
      { faults: [{ kind: 'http_error', status: 501 }] },
      'plan.faults[0].status: must be one of 500, 502, 503, 504, got 501',
    ],
    [
      { faults: [{ kind: 'rate_limit', retryAfter: 1.5 }] },
      'plan.faults[0].retryAfter: must be an integer >= 0, got 1.5',
    ],
    [
      { faults: [{ kind: 'invalid_params', mode: 'throw' }] },
      'plan.faults[0].mode: must be one of "result", "error", got "throw"',
    ],
    [{ faults: [{ kind: 'flapping' }] }, 'plan.faults[0].period: is required for kind "flapping"'],
    [{ faults: [{ kind: 'mcp_error' }] }, 'plan.faults[0].code: is required for kind "mcp_error"'],
    [
      { faults: [{ kind: 'mcp_error', code: -32023.5 }] },
      'plan.faults[0].code: must be an integer in [-2147483648, 2147483647], got -32023.5',
    ],
    [
      { faults: [{ kind: 'mcp_error', code: -32023, data: [1] }] },
      'plan.faults[0].data: must be an object, got [1]',
    ],
    [
      { faults: [{ kind: 'outage', from: 500, to: 100 }] },
      'plan.faults[0].to: must be greater than from (500), got 100',
    ],
    [
      { faults: [{ kind: 'reset', tool: [] }] },
      'plan.faults[0].tool: must be a string or a non-empty list of strings, got []',
    ],
    [{ faults: [{ kind: 'reset', every: 0 }] }, 'plan.faults[0].every: must be an integer >= 1, got 0'],
    [{ faults: ['reset'] }, 'plan.faults[0]: must be an object with a "kind", got "reset"'],
    [{ faults: { kind: 'reset' } }, 'plan.faults: must be a list, got {"kind":"reset"}'],
    [{ faults: [], unknownSession: 410 }, 'plan.unknownSession: must be one of 404, 400, got 410'],
    [{ fault: [] }, 'plan.fault: unknown field; allowed: faults, unknownSession'],
    [[], 'plan: must be an object with a "faults" list, got []'],
    ['faults: [kind: reset', 'plan: is not valid YAML or JSON:'],
  ])('rejects %j', (input, message) => {
    expect(errorOf(input)).toContain(message);
  });

  it('names the path of the bad field on the error', () => {
    const parse = () => parsePlan({ faults: [{ kind: 'hang', delay: -1 }] });
    expect(parse).toThrow(PlanError);
    expect(parse).toThrow(expect.objectContaining({ path: 'plan.faults[0].delay' }));
  });
});

describe('parsePlan: stream_broken', () => {
  it('accepts the fault with conditions only', () => {
    expect(parsePlan('faults: [{kind: stream_broken, tool: search, times: 1}]').faults).toEqual([
      { kind: 'stream_broken', tool: 'search', times: 1 },
    ]);
    expect(() => parsePlan('faults: [{kind: stream_broken, delay: 5}]')).toThrow(
      'plan.faults[0].delay: unknown field',
    );
  });
});
