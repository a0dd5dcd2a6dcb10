import type { CallContext } from '../call/CallContext.js';
import { show } from '../checkOptions.js';
import { internalsOf } from './internals.js';
import type { McpClientLike } from './McpClientLike.js';
import { UNWRAPPED_METHODS } from './methods.js';
import { readRequestArgs } from './sdkLine.js';

type AnyRequest = { method: string; params?: Record<string, unknown> };

/** What a view of a `withResilience` client gives each of its calls: see {@link withCallContext}. */
export type ViewContext = Pick<CallContext, 'caller' | 'rememberFailure'>;

/**
 * A view of a `withResilience` client whose calls carry `context` (the same client, pipeline, breaker and
 * budget; every other member is the client's): `caller`, whom its calls are for (the negative cache answers the
 * view's repeats only from its own calls' failures, as {@link forCaller} does), and `rememberFailure`, asked once
 * a call failed for good: `false` keeps that failure out of the negative cache, because it depended on the moment
 * (a proxy refused what the server asked during the call while other calls were in flight), so the model's
 * identical repeat goes to the server again. A view per call is cheap. Throws a `TypeError` naming the argument
 * for a client that is not a `withResilience` one, an empty `caller` or a `rememberFailure` that is no function.
 *
 * @example
 * let refusedNow = false;
 * const call = withCallContext(mcp, { caller: session.id, rememberFailure: () => !refusedNow });
 * await call.callTool({ name: 'confirm', arguments: {} });
 */
export function withCallContext<C extends McpClientLike>(client: C, context: ViewContext): C {
  return contextView(client, context, 'withCallContext');
}

/** {@link withCallContext}, its errors naming `name` (the public function called). */
export function contextView<C extends McpClientLike>(client: C, context: ViewContext, name: string): C {
  const internals = internalsOf(client);
  if (internals === undefined) {
    throw new TypeError(
      `${name}: client must be a client returned by withResilience or connectWithResilience`,
    );
  }
  const { caller, rememberFailure } = (context ?? {}) as ViewContext;
  if (caller !== undefined && (typeof caller !== 'string' || caller === '')) {
    throw new TypeError(`${name}: caller must be a non-empty string, got ${show(caller)}`);
  }
  if (rememberFailure !== undefined && typeof rememberFailure !== 'function') {
    throw new TypeError(`${name}: rememberFailure must be a function, got ${show(rememberFailure)}`);
  }
  const own: ViewContext = {
    ...(caller === undefined ? {} : { caller }),
    ...(rememberFailure === undefined ? {} : { rememberFailure }),
  };
  function request(this: unknown, req: AnyRequest, second?: unknown, third?: unknown) {
    if (UNWRAPPED_METHODS.has(req.method)) return client.request(req, second, third);
    return internals?.request(req, readRequestArgs(second, third), own);
  }
  return new Proxy(client, {
    get(target, property, receiver) {
      return property === 'request' ? request : Reflect.get(target, property, receiver);
    },
  });
}
