import { describe, expect, it } from 'vitest';
import { ForwardedError } from '../upstream/ForwardedError.js';
import type { HostLink } from '../upstream/HostLink.js';
import type { Upstream } from '../upstream/Upstream.js';
import { forwardRequest } from './forwardRequest.js';

const host = {} as HostLink;
const extra = {
  signal: new AbortController().signal,
  requestId: 7,
  sendNotification: async () => {},
} as unknown as Parameters<typeof forwardRequest>[3];
const upstreamAnswering = (result: unknown) => ({ request: async () => result }) as unknown as Upstream;
const call = { method: 'tools/call', params: { name: 'book', arguments: {} } };

describe('forwardRequest', () => {
  it('passes a result through unchanged', async () => {
    const result = { content: [{ type: 'text', text: 'ok' }], structuredContent: { id: 1 } };
    expect(await forwardRequest(upstreamAnswering(result), host, call, extra)).toBe(result);
  });

  it('refuses an input_required result (2026-07-28 rounds) with an error that says so, never forwards it', async () => {
    const upstream = upstreamAnswering({ resultType: 'input_required', inputRequests: {} });
    const refused = await forwardRequest(upstream, host, call, extra).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ForwardedError);
    expect(refused).toMatchObject({ code: -32603, data: { resultType: 'input_required' } });
    expect((refused as Error).message).toMatch(
      /"tools\/call" with an input_required result .* does not forward/,
    );
  });
});
