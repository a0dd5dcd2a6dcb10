import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

type Message = { id?: string | number; method?: string; params?: Record<string, unknown> };
type Id = string | number;

/** What a forwarded request's handler gets of its request: the parts {@link forwardRequest} uses. */
export interface DirectExtra {
  readonly signal: AbortSignal;
  readonly requestId: Id;
  sendNotification(notification: { method: string; params?: Record<string, unknown> }): Promise<void>;
}

export type DirectHandler = (request: Message & { method: string }, extra: DirectExtra) => Promise<unknown>;

/** The requests the proxy forwards to the upstream (its `Server` has no handler of its own for them). */
export const DIRECT_METHODS: ReadonlySet<string> = new Set([
  'tools/call',
  'tools/list',
  'resources/list',
  'resources/templates/list',
  'resources/read',
  'prompts/list',
  'prompts/get',
  'completion/complete',
]);

const RELATED_TASK = 'io.modelcontextprotocol/related-task';

/**
 * The host's forwarded requests ({@link DIRECT_METHODS}) served straight from the host's transport, without the
 * SDK `Server`'s request layer (its handler lookup, task bookkeeping and `extra`, and three promise turns before
 * the handler runs): the handler runs at once, on the message as it arrived, and its result or error is sent as
 * the SDK sends it (`{ result, jsonrpc, id }`; an error's `code`, `message` and `data`, `-32603` without a code;
 * nothing for a request the host cancelled). A `notifications/cancelled` naming one of them aborts its signal;
 * the connection's end aborts them all. A request about tasks (`params.task`, a related task) is left to the
 * `Server`, which keeps its own rules for those.
 */
export class DirectRequests {
  private readonly inFlight = new Map<Id, AbortController>();

  constructor(
    private readonly handler: DirectHandler,
    private readonly onerror: (error: Error) => void,
  ) {}

  /** Serves `message` when it is one of the forwarded requests: `true` then, else `false` (the `Server`'s). */
  request(message: JSONRPCMessage, transport: Transport): boolean {
    const m = message as Message;
    if (m.method === undefined || m.id === undefined || !DIRECT_METHODS.has(m.method)) return false;
    if (m.params?.task !== undefined || (m.params?._meta as Record<string, unknown>)?.[RELATED_TASK]) {
      return false;
    }
    this.serve(m as Message & { id: Id; method: string }, transport);
    return true;
  }

  /** Aborts the request a host's `notifications/cancelled` names, when it is one of these. */
  cancelled(message: JSONRPCMessage): void {
    const params = (message as Message).params;
    const id = params?.requestId as Id | undefined;
    if (id !== undefined) this.inFlight.get(id)?.abort(params?.reason);
  }

  /** The connection ended: every request still in flight is aborted. */
  close(): void {
    for (const controller of this.inFlight.values()) controller.abort();
    this.inFlight.clear();
  }

  private serve(request: Message & { id: Id; method: string }, transport: Transport): void {
    const { id } = request;
    const controller = new AbortController();
    const { signal } = controller;
    this.inFlight.set(id, controller);
    const extra: DirectExtra = {
      signal,
      requestId: id,
      sendNotification: async (notification) => {
        if (signal.aborted) return;
        await transport.send({ ...notification, jsonrpc: '2.0' } as JSONRPCMessage, {
          relatedRequestId: id,
        });
      },
    };
    let pending: Promise<unknown>;
    try {
      pending = this.handler(request, extra);
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending
      .then(
        (result) => (signal.aborted ? undefined : transport.send({ result, jsonrpc: '2.0', id } as never)),
        (error: unknown) =>
          signal.aborted ? undefined : transport.send({ jsonrpc: '2.0', id, error: wireError(error) }),
      )
      .catch((error: unknown) => this.onerror(new Error(`Failed to send response: ${error}`)))
      .finally(() => {
        if (this.inFlight.get(id) === controller) this.inFlight.delete(id);
      });
  }
}

/** A handler's failure as the SDK answers it: its `code` (`-32603` when it has none), `message` and `data`. */
function wireError(error: unknown): { code: number; message: string; data?: unknown } {
  const e = (error ?? {}) as { code?: unknown; message?: unknown; data?: unknown };
  return {
    code: Number.isSafeInteger(e.code) ? (e.code as number) : ErrorCode.InternalError,
    message: typeof e.message === 'string' ? e.message : 'Internal error',
    ...(e.data !== undefined ? { data: e.data } : {}),
  };
}
