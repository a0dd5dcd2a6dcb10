import { show } from '../checkOptions.js';
import type { McpClientLike } from './McpClientLike.js';
import { contextView } from './withCallContext.js';

/**
 * A view of a `withResilience` client for one of the callers it serves (`caller`: a gateway's host session, a
 * service's user): the same client, pipeline, breaker and budget, but the negative cache answers the view's
 * repeats only from the failures its own calls got, so a failure one caller got (a capability it lacks, an
 * input its user declined) never answers another caller's identical call. Every other member is the client's.
 * Throws a `TypeError` naming the argument for a client that is not a `withResilience` one, or an empty `caller`.
 * (`withCallContext` gives the calls more context.)
 *
 * @example
 * const mine = forCaller(mcp, session.id);
 * await mine.callTool({ name: 'search', arguments: { q: 'x' } });
 */
export function forCaller<C extends McpClientLike>(client: C, caller: string): C {
  if (typeof caller !== 'string' || caller === '') {
    // The client is checked first, as before.
    contextView(client, {}, 'forCaller');
    throw new TypeError(`forCaller: caller must be a non-empty string, got ${show(caller)}`);
  }
  return contextView(client, { caller }, 'forCaller');
}
