import { describe, expect, it } from 'vitest';
import { upstreamRefusal } from './upstreamRefusal.js';

describe('upstreamRefusal', () => {
  it('names the URL (without credentials or query) and the system code that fetch failed hides', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
    const error = new Error('retryable network after 13 attempts (circuit_open): fetch failed', {
      cause: new TypeError('fetch failed', { cause: refused }),
    });
    const spec = { kind: 'http', url: 'http://me:secret@127.0.0.1:1/mcp?key=k' } as const;
    expect(upstreamRefusal(spec, error)).toBe(
      'mcp-resilience: could not connect to the upstream server at http://127.0.0.1:1/mcp: retryable network after 13 attempts (circuit_open): fetch failed (ECONNREFUSED)',
    );
  });

  it('names the command, and does not repeat a code the message already says', () => {
    const error = Object.assign(new Error('spawn server-x ENOENT'), { code: 'ENOENT' });
    const spec = { kind: 'stdio', command: 'server-x', args: ['--port', '1'] } as const;
    expect(upstreamRefusal(spec, error)).toBe(
      "mcp-resilience: could not start the upstream server 'server-x --port 1': spawn server-x ENOENT",
    );
  });

  it("without a code: the innermost cause's message (fetch refuses port 1 as a 'bad port')", () => {
    const error = new Error('retryable network after 1 attempt (max_attempts): fetch failed', {
      cause: new TypeError('fetch failed', { cause: new Error('bad port') }),
    });
    const spec = { kind: 'http', url: 'http://127.0.0.1:1/mcp' } as const;
    expect(upstreamRefusal(spec, error)).toBe(
      'mcp-resilience: could not connect to the upstream server at http://127.0.0.1:1/mcp: retryable network after 1 attempt (max_attempts): fetch failed (bad port)',
    );
  });

  it('without a cause: the reason as it is', () => {
    const spec = { kind: 'http', url: 'https://tickets.example.com/mcp' } as const;
    expect(
      upstreamRefusal(spec, new Error('non_retryable unauthorized after 1 attempt (non_retryable)')),
    ).toBe(
      'mcp-resilience: could not connect to the upstream server at https://tickets.example.com/mcp: non_retryable unauthorized after 1 attempt (non_retryable)',
    );
  });
});
