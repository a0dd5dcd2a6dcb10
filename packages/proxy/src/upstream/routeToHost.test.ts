import { describe, expect, it } from 'vitest';
import type { HostLink } from './HostLink.js';
import { routeToHost } from './routeToHost.js';

const host = (accepts = true): HostLink => ({
  request: async () => ({}),
  notify: async () => {},
  accepts: () => accepts,
});

describe('routeToHost', () => {
  it('sends a server-to-client request to the only host, related to its only call in flight', () => {
    const a = host();
    expect(routeToHost('sampling/createMessage', [{ host: a, requestId: 7 }], new Set([a]), 's')).toEqual({
      kind: 'host',
      host: a,
      relatedRequestId: 7,
    });
  });

  it('picks the host with calls in flight among several', () => {
    const [a, b] = [host(), host()];
    const route = routeToHost(
      'roots/list',
      [
        { host: b, requestId: 1 },
        { host: b, requestId: 2 },
      ],
      new Set([a, b]),
      's',
    );
    expect(route).toEqual({ kind: 'host', host: b });
  });

  it('refuses when it cannot tell the host, or the host lacks the capability', () => {
    const [a, b] = [host(), host()];
    const both = [
      { host: a, requestId: 1 },
      { host: b, requestId: 1 },
    ];
    const ambiguous = routeToHost('sampling/createMessage', both, new Set([a, b]), 's');
    expect(ambiguous.kind === 'refused' && ambiguous.error.message).toContain('2 hosts share this upstream');
    // Which hosts have calls in flight is the moment's; what a host declared is not.
    expect(ambiguous.kind === 'refused' && ambiguous.error.momentary).toBe(true);
    const lacking = routeToHost('elicitation/create', [], new Set([host(false)]), 's');
    expect(lacking.kind === 'refused' && lacking.error.message).toContain(
      'did not declare the "elicitation" capability',
    );
    expect(lacking.kind === 'refused' && lacking.error.momentary).toBe(false);
  });
});
