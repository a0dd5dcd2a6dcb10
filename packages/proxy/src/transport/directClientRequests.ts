import { type Clock, DeadlineWatch, realClock, type Watched } from '@mcp-resilience/middleware';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage, McpError } from '@modelcontextprotocol/sdk/types.js';

type Request = { method: string; params?: Record<string, unknown> };
type Response = { result?: unknown };
type ResultSchema = {
  safeParse(data: unknown): { success: true; data: unknown } | { success: false; error: Error };
};
type RequestFn = (request: Request, schema?: unknown, options?: Record<string, unknown>) => Promise<unknown>;

/** The members of an SDK 1.x `Protocol` (`Client`) that the direct requests use. */
interface ClientInternals {
  request: RequestFn;
  readonly _transport: Transport | undefined;
  _requestMessageId: number;
  readonly _responseHandlers: Map<number, (response: Response | Error) => void>;
  readonly _options?: { enforceStrictCapabilities?: boolean };
  _onerror(error: Error): void;
}

/** Options of {@link directClientRequests}. All optional. */
export interface DirectClientRequestsOptions {
  /** The clock of the requests' time limits (one timer for all). Default: the real clock. */
  readonly clock?: Clock;
}

export const directClientRequestsDefaults = {
  clock: realClock,
  /** The SDK's own default time limit of a request. */
  timeoutMs: 60_000,
} as const;

/** The request options the direct path handles; any other (progress, tasks, resumption) goes to the SDK. */
const HANDLED = new Set([
  'signal',
  'timeout',
  'resetTimeoutOnProgress',
  'maxTotalTimeout',
  'allowInputRequired',
]);

const MEMBERS = ['request', '_onerror'] as const;

/**
 * Gives an SDK 1.x `Client` a lighter `request()` for `methods` whose result schema is `schema` (the proxy's
 * pass-through): the request is written to the transport with an id of the client's own sequence and its response
 * matched by that id in the client's response table (the SDK's `_onresponse`, or `leanDispatch`'s, settles it; the
 * connection's end rejects it with the SDK's `Connection closed`), without the SDK's per-request `setTimeout`,
 * abort listener left behind and schema parse. The same outcomes as the SDK's: a time limit (`timeout`, default
 * the SDK's 60 s) or the signal's abort sends `notifications/cancelled` and rejects with the SDK's `McpError`
 * (`-32001`); a failed write rejects with its error; an error response rejects with its `McpError`. Requests with
 * progress (`onprogress`), tasks, related requests or resumption tokens, other methods and other schemas go
 * through the SDK's `request()` unchanged, as do all with `enforceStrictCapabilities`. The time limits share one
 * timer ({@link DeadlineWatch}). Throws when the client lacks one of those members (an SDK that changed its
 * internals).
 */
export function directClientRequests<C extends object>(
  client: C,
  methods: ReadonlySet<string>,
  schema: ResultSchema,
  options: DirectClientRequestsOptions = {},
): C {
  const c = client as unknown as ClientInternals;
  const missing = MEMBERS.find((name) => typeof c[name] !== 'function');
  if (missing !== undefined || !(c._responseHandlers instanceof Map)) {
    throw new Error(
      `mcp-resilience: this SDK client has no ${missing ?? '_responseHandlers'} to request through`,
    );
  }
  const clock = options.clock ?? directClientRequestsDefaults.clock;
  const deadlines = new DeadlineWatch(clock);
  const sdkRequest = c.request;
  c.request = function request(this: unknown, req, second, third) {
    const self = (this ?? client) as ClientInternals;
    const given = third as Record<string, unknown> | undefined;
    if (
      second !== schema ||
      !methods.has(req.method) ||
      !handled(given) ||
      self._options?.enforceStrictCapabilities
    ) {
      return sdkRequest.call(this, req, second, third);
    }
    return send(self, req, schema, given ?? {}, deadlines, clock);
  };
  return client;
}

/** Whether the direct path handles these request options. */
function handled(options: Record<string, unknown> | undefined): boolean {
  if (options === undefined) return true;
  for (const key in options) if (options[key] !== undefined && !HANDLED.has(key)) return false;
  return true;
}

function send(
  c: ClientInternals,
  request: Request,
  schema: ResultSchema,
  options: Record<string, unknown>,
  deadlines: DeadlineWatch,
  clock: Clock,
): Promise<unknown> {
  const transport = c._transport;
  if (transport === undefined) return Promise.reject(new Error('Not connected'));
  const signal = options.signal as AbortSignal | undefined;
  if (signal?.aborted) return Promise.reject(signal.reason);
  const id = c._requestMessageId++;
  const timeout =
    typeof options.timeout === 'number' ? options.timeout : directClientRequestsDefaults.timeoutMs;
  return new Promise((resolve, reject) => {
    const settle = () => {
      deadlines.unwatch(watched);
      signal?.removeEventListener('abort', onAbort);
    };
    const cancel = (reason: unknown) => {
      if (c._responseHandlers.get(id) !== handler) return;
      c._responseHandlers.delete(id);
      settle();
      const notification = {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: id, reason: String(reason) },
      };
      c._transport
        ?.send(notification as JSONRPCMessage)
        .catch((error: unknown) => c._onerror(new Error(`Failed to send cancellation: ${error}`)));
      reject(reason instanceof McpError ? reason : new McpError(ErrorCode.RequestTimeout, String(reason)));
    };
    const onAbort = () => cancel(signal?.reason);
    const watched: Watched = {
      at: clock.now() + timeout,
      expire: () => cancel(McpError.fromError(ErrorCode.RequestTimeout, 'Request timed out', { timeout })),
    };
    const handler = (response: Response | Error) => {
      settle();
      if (response instanceof Error) return reject(response);
      const parsed = schema.safeParse(response.result);
      if (parsed.success) resolve(parsed.data);
      else reject(parsed.error);
    };
    c._responseHandlers.set(id, handler);
    deadlines.watch(watched);
    signal?.addEventListener('abort', onAbort, { once: true });
    transport.send({ ...request, jsonrpc: '2.0', id } as JSONRPCMessage).catch((error: unknown) => {
      if (c._responseHandlers.get(id) !== handler) return;
      c._responseHandlers.delete(id);
      settle();
      reject(error);
    });
  });
}
