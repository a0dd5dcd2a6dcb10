import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ResilienceError } from '../errors/ResilienceError.js';
import {
  type Classification,
  ERROR_CLASSES,
  ERROR_TYPES,
  EXECUTION_STATES,
  isErrorClass,
  isErrorType,
  isExecution,
} from './Classification.js';
import type { ClassificationRule } from './ClassificationRule.js';
import type { ClassifyContext } from './ClassifyContext.js';
import { classifyError } from './classifyError.js';
import { parseRetryAfterHeader, retryAfterMsOf } from './retryAfter.js';

const RUNS = { seed: 20260301, numRuns: 2000 } as const;
const NOW = Date.parse('2026-03-01T12:00:00Z');

/** Every key the classifier reads somewhere. */
const KEYS = [
  'name',
  'message',
  'code',
  'errno',
  'status',
  'statusCode',
  'response',
  'headers',
  'data',
  'cause',
  'errors',
  'retryAfter',
  'retryAfterMs',
  'isError',
  'content',
  'classification',
  'get',
] as const;

const MESSAGES = [
  'MCP error -32602: Input validation error: Invalid arguments for tool get-sum',
  'MCP error -32001: AbortError: This operation was aborted',
  'MCP error -99999999999999999999: overflow',
  'missing required parameter: owner',
  'failed to get issue: GET https://api.github.com/repos/o/r/issues/1: 404 Not Found []',
  'GitHub API rate limit exceeded. Retry after 37s.',
  'Failed to fetch https://x - status code 503',
  'Service temporarily unavailable',
  'unexpected status 502: <html>...',
  'Invalid city: Atlantis',
  'retry after 99999999999999999999999999999999999999999 hours',
  'try again in 1.5s',
  'wait 3 minutes',
  'fetch failed',
  'Not connected',
  'You exceeded your current quota',
  'Bad Request: No valid session ID provided',
  '',
];

const text = fc.oneof(
  fc.constantFrom(...MESSAGES),
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 40 }),
);
const code = fc.oneof(
  fc.integer({ min: -32800, max: 700 }),
  fc.constantFrom(-32700, -32600, -32601, -32602, -32603, -32000, -32001, -32002, -32042, 0, 429, 503),
  fc.constantFrom(
    'ECONNREFUSED',
    'ECONNRESET',
    'ETIMEDOUT',
    'UND_ERR_SOCKET',
    'ABORT_ERR',
    'ENOENT',
    'insufficient_quota',
  ),
  fc.double(),
  fc.string(),
);
const status = fc.oneof(fc.integer({ min: 0, max: 999 }), fc.constantFrom('503', '4o4'), fc.double());
const name = fc.oneof(
  fc.constantFrom(
    'Error',
    'TypeError',
    'McpError',
    'AbortError',
    'TimeoutError',
    'AttemptTimeoutError',
    'CanceledError',
  ),
  fc.string(),
);
const headerValue = fc.oneof(
  fc.constantFrom('2', '1.5', '-3', 'Sun, 01 Mar 2026 12:00:30 GMT', 'soon', '1e400', '9'.repeat(330)),
  fc.double(),
  fc.string(),
);
const headers = fc.oneof(
  fc.dictionary(fc.constantFrom('retry-after', 'Retry-After', 'retry-after-ms', 'x-other'), headerValue),
  fc.constant(new Headers({ 'retry-after': '3' })),
  fc.anything(),
);

/** Error-like objects: random fields the classifier reads, random cause chains and aggregated errors. */
const { errorLike } = fc.letrec<{ errorLike: unknown }>((tie) => ({
  errorLike: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    text,
    fc.record(
      {
        name,
        message: fc.oneof(text, fc.anything()),
        code,
        errno: fc.oneof(code, fc.anything()),
        status,
        statusCode: status,
        response: fc.record({ status, statusCode: status, headers }, { requiredKeys: [] }),
        headers,
        data: fc.oneof(fc.anything(), fc.record({ retryAfter: headerValue, retryAfterMs: fc.double() })),
        retryAfter: headerValue,
        retryAfterMs: fc.oneof(fc.double(), fc.string()),
        isError: fc.boolean(),
        content: fc.array(fc.record({ type: fc.constant('text'), text }), { maxLength: 3 }),
        cause: tie('errorLike'),
        errors: fc.array(tie('errorLike'), { maxLength: 4 }),
      },
      { requiredKeys: [] },
    ),
    fc
      .tuple(name, text, tie('errorLike'))
      .map(([n, m, cause]) => Object.assign(new Error(m, { cause }), { name: n })),
  ),
}));

const hostileHandler: ProxyHandler<object> = Object.fromEntries(
  [
    'get',
    'has',
    'ownKeys',
    'getOwnPropertyDescriptor',
    'getPrototypeOf',
    'setPrototypeOf',
    'set',
    'defineProperty',
    'deleteProperty',
    'isExtensible',
    'preventExtensions',
    'apply',
    'construct',
  ].map((trap) => [
    trap,
    () => {
      throw new Error(`trap ${trap}`);
    },
  ]),
);

function revoked(): object {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

/**
 * A value built inside the property, not by fast-check: fast-check itself inspects generated values (`in`,
 * getters), which a hostile Proxy would make throw. `toStringMethod` keeps counterexamples readable.
 */
type Build<T = unknown> = (() => T) & { readonly [fc.toStringMethod]: () => string };

function build<T>(make: () => T, describe: string): Build<T> {
  return Object.assign(make, { [fc.toStringMethod]: () => describe });
}

const plain = <T>(value: T): Build<T> => build(() => value, fc.stringify(value));

/** Proxies that throw on every trap (also revoked ones). */
const hostileProxy: fc.Arbitrary<Build<object>> = fc.constantFrom(
  build(() => new Proxy({}, hostileHandler), 'hostile Proxy({})'),
  build(() => new Proxy(() => undefined, hostileHandler), 'hostile Proxy(function)'),
  build(() => new Proxy([], hostileHandler), 'hostile Proxy([])'),
  build(revoked, 'revoked Proxy'),
);

/** An error-like object whose chosen keys are getters that throw (an Error, or something odder). */
const throwingGetters: fc.Arbitrary<Build> = fc
  .tuple(
    errorLike,
    fc.subarray([...KEYS], { minLength: 1 }),
    fc.constantFrom('error', 'undefined', 'string', 'proxy'),
  )
  .map(([base, keys, thrown]) =>
    build(
      () => {
        const target: object = Object.assign(
          new Error('getters'),
          typeof base === 'object' ? base : { base },
        );
        for (const key of keys) {
          Object.defineProperty(target, key, {
            configurable: true,
            enumerable: true,
            get() {
              if (thrown === 'error') throw new Error('getter');
              if (thrown === 'proxy') throw new Proxy({}, hostileHandler);
              throw thrown === 'string' ? 'getter' : undefined;
            },
          });
        }
        return target;
      },
      `${fc.stringify(base)} with throwing ${keys.join(', ')} (${thrown})`,
    ),
  );

/** Cause chains that loop back (to themselves, to the head, through `errors`). */
const circular = fc
  .tuple(fc.integer({ min: 1, max: 12 }), text, fc.constantFrom('cause', 'errors'))
  .map(([length, message, via]) => {
    const head = new Error(message);
    let tail = head;
    for (let i = 1; i < length; i++) {
      const next = Object.assign(new Error(`${message} ${i}`), { code: i % 2 ? 'ECONNRESET' : -32603 });
      Object.assign(tail, { cause: next });
      tail = next;
    }
    if (via === 'cause') Object.assign(tail, { cause: head });
    else Object.assign(tail, { errors: [head, tail, head] });
    return head;
  });

/** Long chains: only the first levels are read. */
const deepChain = fc.integer({ min: 0, max: 200 }).map((depth) => {
  let error: unknown = Object.assign(new Error('deep'), { code: 'ECONNREFUSED' });
  for (let i = 0; i < depth; i++) error = new Error(`level ${i}`, { cause: error });
  return error;
});

const resilienceError = fc
  .record({
    class: fc.constantFrom(...ERROR_CLASSES),
    type: fc.constantFrom(...ERROR_TYPES),
    execution: fc.constantFrom(...EXECUTION_STATES),
  })
  .map((c) => new ResilienceError({ ...c, source: 'loop' }, 1, 'max_attempts', undefined));

const anyError: fc.Arbitrary<Build> = fc.oneof(
  fc
    .anything({
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withObjectString: true,
      withSparseArray: true,
      withTypedArray: true,
    })
    .map(plain),
  errorLike.map(plain),
  throwingGetters,
  circular.map(plain),
  deepChain.map(plain),
  resilienceError.map(plain),
  hostileProxy,
  fc
    .tuple(hostileProxy, text)
    .map(([make, message]) => build(() => new Error(message, { cause: make() }), `Error with cause ${make}`)),
  fc
    .tuple(hostileProxy, text)
    .map(([make, message]) =>
      build(() => new AggregateError([make(), new Error(message)], message), `AggregateError of ${make}`),
    ),
  fc.constantFrom(Symbol('x'), 10n, () => undefined, new DOMException('x', 'AbortError')).map(plain),
);

const verdict = fc.record(
  {
    class: fc.oneof(fc.constantFrom(...ERROR_CLASSES), fc.string()),
    type: fc.oneof(fc.constantFrom(...ERROR_TYPES), fc.string()),
    execution: fc.oneof(fc.constantFrom(...EXECUTION_STATES), fc.string()),
    retryAfterMs: fc.oneof(fc.double(), fc.integer()),
    healthNeutral: fc.anything(),
    source: fc.oneof(fc.string(), fc.anything()),
    message: fc.oneof(fc.string({ maxLength: 2000 }), fc.anything()),
  },
  { requiredKeys: ['class', 'type'] },
);

const rule: fc.Arbitrary<Build> = fc.oneof(
  fc
    .record(
      {
        name: fc.oneof(fc.string(), fc.anything()),
        status: fc.oneof(status, fc.array(status)),
        code: fc.oneof(code, fc.array(code)),
        errorName: fc.oneof(name, fc.array(name)),
        message: fc.oneof(fc.string(), fc.constantFrom(/timeout/i, /x/g, /(a+)+$/)),
        endpoint: fc.oneof(fc.string(), fc.array(fc.string())),
        operation: fc.oneof(fc.string(), fc.array(fc.string())),
        classify: verdict,
      },
      { requiredKeys: [] },
    )
    .map(plain),
  verdict.map((v) => plain(() => v)),
  fc.constant(
    plain(() => {
      throw new Error('rule bug');
    }),
  ),
  fc.anything().map(plain),
  hostileProxy,
);

const context: fc.Arbitrary<Build<ClassifyContext | undefined>> = fc.oneof(
  fc.constant(plain(undefined)),
  fc
    .record(
      {
        endpoint: fc.oneof(fc.string(), fc.anything()),
        operation: fc.oneof(fc.string(), fc.anything()),
        rules: fc.oneof(fc.array(rule, { maxLength: 4 }), fc.anything().map(plain), hostileProxy),
        signal: fc.oneof(
          fc.constant(plain(new AbortController().signal)),
          fc.constant(plain(AbortSignal.abort())),
          fc.constant(plain(AbortSignal.abort(new DOMException('t', 'TimeoutError')))),
          fc.anything().map(plain),
          hostileProxy,
        ),
        now: fc.oneof(fc.constant(NOW), fc.double(), fc.anything()),
      },
      { requiredKeys: [] },
    )
    .map((fields) =>
      build(() => {
        const { rules, signal, ...rest } = fields;
        return {
          ...rest,
          ...(rules === undefined
            ? {}
            : { rules: Array.isArray(rules) ? rules.map((make) => make()) : rules() }),
          ...(signal === undefined ? {} : { signal: signal() }),
        } as ClassifyContext;
      }, fc.stringify(fields)),
    ),
  hostileProxy as fc.Arbitrary<Build<ClassifyContext>>,
);

function expectValid(classification: Classification): void {
  expect(isErrorClass(classification.class)).toBe(true);
  expect(isErrorType(classification.type)).toBe(true);
  expect(isExecution(classification.execution)).toBe(true);
  expect(typeof classification.source).toBe('string');
  expect(classification.source.length).toBeGreaterThan(0);
  expect(classification.source).not.toBe('classify_failed');
  if (classification.retryAfterMs !== undefined) {
    expect(Number.isFinite(classification.retryAfterMs)).toBe(true);
    expect(classification.retryAfterMs).toBeGreaterThanOrEqual(0);
  }
  if (classification.message !== undefined) {
    expect(typeof classification.message).toBe('string');
    expect(classification.message.length).toBeLessThanOrEqual(512);
  }
  if (classification.healthNeutral !== undefined) expect(typeof classification.healthNeutral).toBe('boolean');
  if (classification.class === 'non_retryable') expect(classification.healthNeutral).not.toBe(false);
}

describe('classifyError properties', () => {
  it('never throws and always returns a valid classification', () => {
    fc.assert(
      fc.property(anyError, context, (error, ctx) => {
        expectValid(classifyError(error(), ctx()));
      }),
      RUNS,
    );
  });

  it('built-in decisions: conditional rate limits are health-neutral, non-retryable ones never count', () => {
    fc.assert(
      fc.property(anyError, (error) => {
        const classification = classifyError(error(), { now: NOW });
        expectValid(classification);
        if (classification.class === 'conditional' && classification.type === 'rate_limited') {
          expect(classification.healthNeutral).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it('is deterministic for a fixed now (pure)', () => {
    fc.assert(
      fc.property(fc.oneof(errorLike, circular, deepChain), (error) => {
        expect(classifyError(error, { now: NOW })).toEqual(classifyError(error, { now: NOW }));
      }),
      RUNS,
    );
  });

  it('returns JSON-serialisable plain data', () => {
    fc.assert(
      fc.property(anyError, (error) => {
        const classification = classifyError(error(), { now: NOW });
        expect(JSON.parse(JSON.stringify(classification))).toEqual(classification);
      }),
      RUNS,
    );
  });

  it('reads only the first levels of a long chain', () => {
    const deep = new Error('top', { cause: new Error('1', { cause: new Error('2') }) });
    let tail: Error = deep;
    for (let i = 0; i < 20; i++) {
      const next = new Error(`level ${i}`);
      Object.assign(tail, { cause: next });
      tail = next;
    }
    Object.assign(tail, { code: 'ECONNREFUSED' });
    expect(classifyError(deep).source).toBe('default');
  });

  it('handles a rule list that is a hostile Proxy', () => {
    const rules = new Proxy([], hostileHandler) as unknown as ClassificationRule[];
    expectValid(classifyError(new Error('Invalid city'), { rules }));
  });
});

describe('Retry-After helpers never throw', () => {
  it('parseRetryAfterHeader', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.anything(), headerValue),
        fc.oneof(fc.double(), fc.constant(undefined)),
        (value, now) => {
          const delay = parseRetryAfterHeader(value, now);
          if (delay !== undefined) {
            expect(Number.isFinite(delay)).toBe(true);
            expect(delay).toBeGreaterThanOrEqual(0);
          }
        },
      ),
      RUNS,
    );
  });

  it('retryAfterMsOf', () => {
    fc.assert(
      fc.property(anyError, (error) => {
        const delay = retryAfterMsOf(error(), NOW);
        if (delay !== undefined) {
          expect(Number.isFinite(delay)).toBe(true);
          expect(delay).toBeGreaterThanOrEqual(0);
        }
      }),
      RUNS,
    );
  });
});
