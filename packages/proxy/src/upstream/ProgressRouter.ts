/** The `_meta` key that tells the router which host request an outgoing request is for (removed before sending). */
const ROUTE_KEY = 'io.mcp-resilience/progress-route';

type Message = { method?: string; id?: unknown; params?: Record<string, unknown> };
type TransportHooks = {
  send(message: Message, options?: unknown): Promise<void>;
  onmessage?: ((message: Message, extra?: unknown) => void) | undefined;
};
export type ProgressListener = (progress: Record<string, unknown>) => void;

/**
 * Routes the upstream's progress notifications to the host requests they belong to, on the transport itself:
 * the SDK assigns each attempt its own `progressToken` when it sends it, and the router reads it there. Reading
 * progress before the SDK does keeps the last one, which the SDK drops when the response arrives in the same
 * chunk (it deletes the request's progress handler before its deferred notification handler runs).
 */
export class ProgressRouter {
  private next = 0;
  private readonly byKey = new Map<number, { listener: ProgressListener; tokens: Set<unknown> }>();
  private readonly byToken = new Map<unknown, ProgressListener>();

  /** Marks `params` for `listener`; call the returned function when the request settles. */
  register(
    params: Record<string, unknown>,
    listener: ProgressListener,
  ): { params: Record<string, unknown>; done: () => void } {
    const key = this.next++;
    const route = { listener, tokens: new Set<unknown>() };
    this.byKey.set(key, route);
    const meta = (params._meta ?? {}) as Record<string, unknown>;
    return {
      params: { ...params, _meta: { ...meta, [ROUTE_KEY]: key } },
      done: () => {
        this.byKey.delete(key);
        for (const token of route.tokens) this.byToken.delete(token);
      },
    };
  }

  /** Hooks a transport before the SDK connects it (the SDK then chains its own `onmessage` after this one). */
  hook<T extends object>(transport: T): T {
    const t = transport as unknown as TransportHooks;
    const send = t.send;
    t.send = (message, options) => send.call(t, this.outgoing(message), options);
    t.onmessage = (message) => {
      if (message.method !== 'notifications/progress' || message.params === undefined) return;
      const { progressToken, ...progress } = message.params;
      this.byToken.get(progressToken)?.(progress);
    };
    return transport;
  }

  private outgoing(message: Message): Message {
    const meta = message.params?._meta as Record<string, unknown> | undefined;
    if (meta === undefined || !(ROUTE_KEY in meta)) return message;
    const { [ROUTE_KEY]: key, ...rest } = meta;
    const route = this.byKey.get(key as number);
    if (route && rest.progressToken !== undefined) {
      route.tokens.add(rest.progressToken);
      this.byToken.set(rest.progressToken, route.listener);
    }
    const params = { ...message.params };
    if (Object.keys(rest).length > 0) params._meta = rest;
    else delete params._meta;
    return { ...message, params };
  }
}
