import { show } from '../checkOptions.js';
import { internalsOf } from './internals.js';
import type { McpClientLike } from './McpClientLike.js';
import { UNWRAPPED_METHODS } from './methods.js';
import { readRequestArgs } from './sdkLine.js';

type AnyRequest = { method: string; params?: Record<string, unknown> };

/**
 * A view of a `withResilience` client for one of the callers it serves (`caller`: a gateway's host session, a
 * service's user): the same client, pipeline, breaker and budget, but the negative cache answers the view's
 * repeats only from the failures its own calls got, so a failure one caller got (a capability it lacks, an
 * input its user declined) never answers another caller's identical call. Every other member is the client's.
 * Throws a `TypeError` naming the argument for a client that is not a `withResilience` one, or an empty `caller`.
 *
 * @example
 * const mine = forCaller(mcp, session.id);
 * await mine.callTool({ name: 'search', arguments: { q: 'x' } });
 */
export function forCaller<C extends McpClientLike>(client: C, caller: string): C {
  const found = internalsOf(client);
  if (found === undefined) {
    throw new TypeError(
      'forCaller: client must be a client returned by withResilience or connectWithResilience',
    );
  }
  if (typeof caller !== 'string' || caller === '') {
    throw new TypeError(`forCaller: caller must be a non-empty string, got ${show(caller)}`);
  }
  const internals = found;
  const context = { caller };
  function request(this: unknown, req: AnyRequest, second?: unknown, third?: unknown) {
    if (UNWRAPPED_METHODS.has(req.method)) return client.request(req, second, third);
    return internals.request(req, readRequestArgs(second, third), context);
  }
  return new Proxy(client, {
    get(target, property, receiver) {
      return property === 'request' ? request : Reflect.get(target, property, receiver);
    },
  });
}
