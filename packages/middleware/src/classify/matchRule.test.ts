import { describe, expect, it, vi } from 'vitest';
import type { ClassificationRule, DeclarativeRule, FunctionRule } from './ClassificationRule.js';
import { classifyError } from './classifyError.js';
import { axiosError, McpError, StreamableHTTPError, systemError } from './test-support/errorShapes.js';

const RETRY_LATER = { class: 'retryable', type: 'not_found' } as const;
const notFound = Object.assign(new Error('Not Found'), { name: 'HttpError', status: 404 });

describe('declarative rules', () => {
  it.each<[string, Omit<DeclarativeRule, 'classify'>, unknown, boolean]>([
    ['status matches', { status: 404 }, notFound, true],
    ['status list matches', { status: [410, 404] }, notFound, true],
    ['status differs', { status: 500 }, notFound, false],
    ['status from response.status', { status: 503 }, axiosError(503), true],
    ['numeric code matches', { code: -32602 }, new McpError(-32602, 'bad'), true],
    ['string code matches', { code: 'ECONNRESET' }, systemError('ECONNRESET', 'read ECONNRESET'), true],
    ['code list', { code: ['EPIPE', -32000] }, new McpError(-32000, 'Connection closed'), true],
    ['code differs', { code: 'EPIPE' }, systemError('ECONNRESET', 'read ECONNRESET'), false],
    ['errorName matches', { errorName: 'McpError' }, new McpError(-32603, 'x'), true],
    ['errorName differs', { errorName: ['HttpError', 'AxiosError'] }, new McpError(-32603, 'x'), false],
    ['message RegExp', { message: /unknown city/i }, new Error('Unknown city: Atlantis'), true],
    ['message substring, any case', { message: 'UNKNOWN CITY' }, new Error('unknown city: Atlantis'), true],
    ['message differs', { message: 'quota' }, new Error('unknown city'), false],
    ['message of a string error', { message: 'atlantis' }, 'Unknown city: Atlantis', true],
    [
      'conditions look into the cause chain',
      { status: 404 },
      new Error('wrapped', { cause: notFound }),
      true,
    ],
    [
      'message in the cause chain',
      { message: /ECONNRESET/ },
      new Error('x', { cause: new Error('read ECONNRESET') }),
      true,
    ],
    ['every condition must hold', { status: 404, message: 'gone forever' }, notFound, false],
    ['all conditions hold', { status: 404, errorName: 'HttpError', message: /not found/i }, notFound, true],
    ['no condition matches everything', {}, 42, true],
  ])('%s', (_name, conditions, error, matches) => {
    const rule: DeclarativeRule = { name: 'r', ...conditions, classify: RETRY_LATER };
    const classification = classifyError(error, { rules: [rule] });
    expect(classification.source === 'rule:r').toBe(matches);
  });

  it('scopes by endpoint and operation', () => {
    const rule: DeclarativeRule = {
      name: 'github-only',
      endpoint: 'github',
      operation: ['issue_read', 'issue_write'],
      status: 404,
      classify: RETRY_LATER,
    };
    const rules = [rule];
    expect(classifyError(notFound, { rules, endpoint: 'github', operation: 'issue_read' }).source).toBe(
      'rule:github-only',
    );
    expect(classifyError(notFound, { rules, endpoint: 'weather', operation: 'issue_read' }).source).toBe(
      'http.status',
    );
    expect(classifyError(notFound, { rules, endpoint: 'github', operation: 'search' }).source).toBe(
      'http.status',
    );
    expect(classifyError(notFound, { rules }).source).toBe('http.status');
  });

  it('lets the first matching rule win, named by name or index', () => {
    const rules: ClassificationRule[] = [
      { status: 500, classify: { class: 'non_retryable', type: 'server_error' } },
      { status: 404, classify: { class: 'non_retryable', type: 'invalid_params' } },
      { name: 'second-404', status: 404, classify: RETRY_LATER },
    ];
    expect(classifyError(notFound, { rules })).toMatchObject({ source: 'rule:1', type: 'invalid_params' });
    expect(classifyError(axiosError(500), { rules }).source).toBe('rule:0');
  });

  it('overrides a built-in: a 404 for a resource that is still being created is retryable', () => {
    // The pitfall "ignoring context": the same "not found" is a wrong id elsewhere, a not-yet-created resource here.
    const rules: ClassificationRule[] = [
      {
        name: 'report-not-ready',
        operation: 'get_report',
        status: 404,
        classify: { class: 'retryable', type: 'not_found', retryAfterMs: 2000 },
      },
    ];
    expect(classifyError(notFound, { rules, operation: 'get_report' })).toEqual({
      class: 'retryable',
      type: 'not_found',
      execution: 'not_sent',
      retryAfterMs: 2000,
      source: 'rule:report-not-ready',
      message: 'Not Found',
    });
    expect(classifyError(notFound, { rules, operation: 'get_issue' })).toMatchObject({
      class: 'non_retryable',
      source: 'http.status',
    });
  });

  it('takes a missing execution from the built-ins, else unknown', () => {
    const rules: ClassificationRule[] = [{ name: 'any', classify: RETRY_LATER }];
    expect(classifyError(systemError('ECONNREFUSED', 'refused'), { rules }).execution).toBe('not_sent');
    expect(classifyError(new McpError(-32603, 'x'), { rules }).execution).toBe('executed');
    expect(classifyError(new Error('boom'), { rules }).execution).toBe('unknown');
  });

  it('keeps a given execution', () => {
    const rules: ClassificationRule[] = [{ classify: { ...RETRY_LATER, execution: 'executed' } }];
    expect(classifyError(systemError('ECONNREFUSED', 'refused'), { rules }).execution).toBe('executed');
  });

  it('adds the Retry-After of the error to a retryable verdict without one', () => {
    const error = { status: 503, headers: { 'retry-after': '4' } };
    const rules: ClassificationRule[] = [
      { status: 503, classify: { class: 'conditional', type: 'unavailable' } },
    ];
    expect(classifyError(error, { rules }).retryAfterMs).toBe(4000);
    const nonRetryable: ClassificationRule[] = [
      { status: 503, classify: { class: 'non_retryable', type: 'unavailable' } },
    ];
    expect(classifyError(error, { rules: nonRetryable }).retryAfterMs).toBeUndefined();
  });

  it('normalises health neutrality', () => {
    const rateLimited: ClassificationRule[] = [{ classify: { class: 'conditional', type: 'rate_limited' } }];
    expect(classifyError('slow down', { rules: rateLimited }).healthNeutral).toBe(true);
    const nonRetryable: ClassificationRule[] = [
      { classify: { class: 'non_retryable', type: 'invalid_params', healthNeutral: false } },
    ];
    expect(classifyError('bad', { rules: nonRetryable })).not.toHaveProperty('healthNeutral');
    const counted: ClassificationRule[] = [
      { classify: { class: 'retryable', type: 'tool_error', healthNeutral: false } },
    ];
    expect(classifyError('bad', { rules: counted }).healthNeutral).toBe(false);
  });

  it('runs before everything, even a caller abort', () => {
    const rules: ClassificationRule[] = [{ name: 'mine', errorName: 'AbortError', classify: RETRY_LATER }];
    expect(classifyError(new DOMException('x', 'AbortError'), { rules }).source).toBe('rule:mine');
  });

  it('gives the same answer every time with a global RegExp', () => {
    const rules: ClassificationRule[] = [{ name: 'g', message: /city/g, classify: RETRY_LATER }];
    const sources = [1, 2, 3].map(() => classifyError('unknown city', { rules }).source);
    expect(sources).toEqual(['rule:g', 'rule:g', 'rule:g']);
  });

  it('skips malformed rules', () => {
    const rules = [
      null,
      42,
      'rule',
      {},
      { status: 404 },
      { status: 404, classify: { class: 'maybe', type: 'not_found' } },
      { status: 404, classify: { class: 'retryable', type: 'gone' } },
      {
        get status(): number {
          throw new Error('getter');
        },
        classify: RETRY_LATER,
      },
      { name: 'valid', status: 404, classify: RETRY_LATER },
    ] as unknown as ClassificationRule[];
    expect(classifyError(notFound, { rules }).source).toBe('rule:valid');
  });
});

describe('function rules', () => {
  it('receives the error and the context', () => {
    const rule = vi.fn<FunctionRule>(() => undefined);
    const context = { rules: [rule], endpoint: 'github', operation: 'issue_read' };
    classifyError(notFound, context);
    expect(rule).toHaveBeenCalledWith(notFound, context);
  });

  it('decides with a verdict, named after the function or its index', () => {
    function sessionGone(error: unknown) {
      return error instanceof StreamableHTTPError && error.code === 404
        ? ({ class: 'conditional', type: 'session_expired' } as const)
        : undefined;
    }
    const error = new StreamableHTTPError(404, 'Error POSTing to endpoint: Not Found');
    expect(classifyError(error, { rules: [sessionGone] })).toMatchObject({
      class: 'conditional',
      type: 'session_expired',
      execution: 'not_sent',
      source: 'rule:sessionGone',
    });
    expect(classifyError(error, { rules: [() => undefined, () => RETRY_LATER] }).source).toBe('rule:1');
  });

  it('keeps the source of a full classification', () => {
    const rule: FunctionRule = () => ({
      class: 'conditional',
      type: 'tool_error',
      execution: 'executed',
      source: 'mcp.tool_error',
      healthNeutral: true,
    });
    expect(classifyError(new Error('the tool said no'), { rules: [rule] })).toEqual({
      class: 'conditional',
      type: 'tool_error',
      execution: 'executed',
      source: 'mcp.tool_error',
      message: 'the tool said no',
      healthNeutral: true,
    });
  });

  it('passes on undefined and skips a throwing rule or a malformed answer', () => {
    const rules: FunctionRule[] = [
      () => undefined,
      () => {
        throw new Error('rule bug');
      },
      () => ({ class: 'retryable', type: 'nope' }) as never,
      () => Promise.resolve(RETRY_LATER) as never,
    ];
    expect(classifyError(notFound, { rules }).source).toBe('http.status');
  });

  it('is not called after an earlier rule matched', () => {
    const later = vi.fn<FunctionRule>(() => RETRY_LATER);
    classifyError(notFound, { rules: [{ status: 404, classify: RETRY_LATER }, later] });
    expect(later).not.toHaveBeenCalled();
  });
});
