import { describe, expect, it } from 'vitest';
import { redactMessage } from './redactMessage.js';

describe('redactMessage', () => {
  it.each([
    ['bearer token', 'request failed: Bearer abc.def-123', 'request failed: Bearer ***'],
    ['lower-case bearer', 'got bearer xyz789 back', 'got Bearer *** back'],
    ['Authorization header', 'Authorization: Basic dXNlcjpwYXNz\nnext line', 'Authorization: ***\nnext line'],
    ['JSON authorization', '{"authorization": "Token 1234"}', '{"authorization": "***"}'],
    ['x-api-key header', 'x-api-key: 0123456789abcdef', 'x-api-key: ***'],
    ['cookie header', 'Cookie: session=abc; theme=dark', 'Cookie: ***'],
    ['OpenAI key', 'invalid key sk-proj-AbCdEfGhIjKlMnOpQrStUv', 'invalid key sk-***'],
    ['Anthropic key', 'key sk-ant-api03-AbCdEfGhIjKl_mnop is revoked', 'key sk-ant-*** is revoked'],
    ['GitHub PAT (classic)', 'token ghp_0123456789abcdefghijABCDEFGHIJ rejected', 'token ghp_*** rejected'],
    ['GitHub OAuth token', 'gho_0123456789abcdefghij', 'gho_***'],
    ['GitHub fine-grained PAT', 'github_pat_11ABCDEFG0123456789_abcdefghijk', 'github_pat_***'],
    ['AWS access key id', 'AccessDenied for AKIAIOSFODNN7EXAMPLE', 'AccessDenied for AKIA***'],
    ['Slack token', 'slack said xoxb-1234567890-abcdefghij', 'slack said xoxb-***'],
    ['Google API key', 'key=AIzaSyA-1234567890abcdefghijklmnopqrstu', 'key=***'],
    [
      'JWT',
      'expired: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
      'expired: ***',
    ],
    [
      'password in URL',
      'connect https://alice:s3cr3t@db.example.com:5432/x failed',
      'connect https://alice:***@db.example.com:5432/x failed',
    ],
    ['password-only URL userinfo', 'redis://:hunter2@cache:6379', 'redis://:***@cache:6379'],
    [
      'token in query',
      'GET https://api.example.com/v1/items?token=abc123&page=2',
      'GET https://api.example.com/v1/items?token=***&page=2',
    ],
    ['api_key in query', 'GET /search?q=x&api_key=XYZ', 'GET /search?q=x&api_key=***'],
    ['access_token in query', '/cb?access_token=ya29.a0Af&state=1', '/cb?access_token=***&state=1'],
    ['key in query', '/maps?key=abcdef', '/maps?key=***'],
    ['secret, password and sig', 'secret=a password=b sig=c', 'secret=*** password=*** sig=***'],
    [
      'JSON secret fields',
      '{"password":"p4ss","api_key":"k","user":"bob"}',
      '{"password":"***","api_key":"***","user":"bob"}',
    ],
    [
      'nothing secret',
      'ECONNREFUSED 127.0.0.1:4318 (code=ECONNREFUSED)',
      'ECONNREFUSED 127.0.0.1:4318 (code=ECONNREFUSED)',
    ],
    ['words that only look like parameters', 'monkey=banana keyboard=us', 'monkey=banana keyboard=us'],
  ])('removes %s', (_name, input, expected) => {
    expect(redactMessage(input)).toBe(expected);
  });

  it('caps at maxLength with an ellipsis, after redaction', () => {
    expect(redactMessage('a'.repeat(300))).toBe(`${'a'.repeat(255)}…`);
    expect(redactMessage('a'.repeat(300)).length).toBe(256);
    expect(redactMessage('Bearer abcdefghijklmnopqrstuvwxyz done', 12)).toBe('Bearer *** …');
    expect(redactMessage('short', 10)).toBe('short');
    expect(redactMessage('exactly10!', 10)).toBe('exactly10!');
  });

  it('never cuts a surrogate pair in half', () => {
    const out = redactMessage(`abc${'😀'.repeat(10)}`, 5);
    expect(out).toBe('abc…');
    expect(out.length).toBeLessThanOrEqual(5);
  });

  it('masks extra patterns, global or not', () => {
    expect(redactMessage('user 42 and user 43', 256, [/user \d+/])).toBe('*** and ***');
    expect(redactMessage('ACME-1 ACME-2', 256, [/ACME-\d/g])).toBe('*** ***');
  });

  it('bounds the work on huge messages', () => {
    const huge = `${'x'.repeat(1_000_000)} Bearer secret`;
    expect(redactMessage(huge, 100)).toHaveLength(100);
  });
});
