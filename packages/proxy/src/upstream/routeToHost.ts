import { ForwardedError } from './ForwardedError.js';
import type { HostLink } from './HostLink.js';

/** A host request being served by the upstream: who asked, and under which JSON-RPC id. */
export interface InFlight {
  readonly host: HostLink;
  readonly requestId: string | number;
}

/** The capability a server-to-client method needs from the host. */
const CAPABILITY: Readonly<Record<string, string>> = {
  'sampling/createMessage': 'sampling',
  'elicitation/create': 'elicitation',
  'roots/list': 'roots',
};

export type Route =
  | { readonly kind: 'host'; readonly host: HostLink; readonly relatedRequestId?: string | number }
  | { readonly kind: 'refused'; readonly error: ForwardedError };

/**
 * Which host a server-to-client request from the upstream goes to. The wire does not say which of the proxy's
 * requests it belongs to, so: the only host with calls in flight (the request is related to its call when it has
 * exactly one), else the only host connected; with several candidates it is refused, never guessed.
 */
export function routeToHost(
  method: string,
  inFlight: readonly InFlight[],
  hosts: ReadonlySet<HostLink>,
  server: string,
): Route {
  const busy = new Set(inFlight.map((f) => f.host));
  const candidates = busy.size > 0 ? busy : hosts;
  if (candidates.size !== 1) {
    const why =
      candidates.size === 0
        ? 'no host is connected'
        : `${candidates.size} hosts share this upstream${busy.size > 0 ? ' and have calls in flight' : ''}, and the request does not say which it is for`;
    // Which hosts have calls in flight is the moment's: the same call later may meet one host alone.
    return refused(`mcp-resilience: "${method}" from upstream "${server}" cannot be forwarded: ${why}`, true);
  }
  const [host] = candidates as Set<HostLink>;
  if (host === undefined) return refused(`mcp-resilience: no host for "${method}"`);
  const capability = CAPABILITY[method];
  if (capability !== undefined && !host.accepts(method)) {
    return refused(
      `mcp-resilience: upstream "${server}" sent "${method}", but the host did not declare the "${capability}" capability`,
    );
  }
  const mine = inFlight.filter((f) => f.host === host);
  return mine.length === 1 && mine[0] !== undefined
    ? { kind: 'host', host, relatedRequestId: mine[0].requestId }
    : { kind: 'host', host };
}

const refused = (message: string, momentary = false): Route => ({
  kind: 'refused',
  error: new ForwardedError(-32601, message, undefined, { momentary }),
});
