import { ForwardedError } from '../upstream/ForwardedError.js';
import type { HostLink } from '../upstream/HostLink.js';
import type { Upstream } from '../upstream/Upstream.js';
import type { DirectExtra } from './DirectRequests.js';
import { toJsonRpcError } from './toJsonRpcError.js';

type JsonRpcRequestLike = { method: string; params?: Record<string, unknown> };
/** What of the SDK's handler `extra` the forwarding uses (the SDK's own, or {@link DirectExtra}). */
type Extra = DirectExtra;

/** Options of the forwarding: the SDK's per-attempt request timeout. */
export interface ForwardOptions {
  /** The time limit of one attempt, reset by each progress notification. Default 60 000 ms (the SDK's). */
  readonly requestTimeoutMs?: number;
}

export const forwardDefaults = { requestTimeoutMs: 60_000 } as const;

/**
 * What becomes of an upstream's `input_required` result: `refuse` for a 2025-11-25 host, which could not answer
 * it; `pass` for a 2026-07-28 host, which answers it by repeating its request with `inputResponses`.
 */
export type InputRequiredHandling = 'refuse' | 'pass';

/**
 * Forwards one host request to the upstream, unchanged but for:
 * - the host's cancellation (`notifications/cancelled`, or a closed HTTP request): `extra.signal`, which the SDK
 *   turns into a `notifications/cancelled` to the upstream;
 * - progress: the host's `progressToken` is replaced by the SDK's own on each attempt, and each progress
 *   notification from the upstream goes back to the host with the host's token, on the host request's stream;
 * - a failure for good: a JSON-RPC error with the classification in `data` ({@link toJsonRpcError});
 * - an `input_required` result: refused or passed on, as `inputRequired` says.
 */
export async function forwardRequest(
  upstream: Upstream,
  host: HostLink,
  request: JsonRpcRequestLike & { id?: string | number },
  extra: Extra,
  options: ForwardOptions = {},
  inputRequired: InputRequiredHandling = 'refuse',
): Promise<Record<string, unknown>> {
  const token = (request.params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
  const hasToken = typeof token === 'string' || typeof token === 'number';
  const sdkOptions: Record<string, unknown> = {
    signal: extra.signal,
    timeout: options.requestTimeoutMs ?? forwardDefaults.requestTimeoutMs,
    resetTimeoutOnProgress: true,
    // A 2026-07-28 upstream's round handed back as it is, not fulfilled by the SDK v2 client.
    ...(inputRequired === 'pass' ? { allowInputRequired: true } : {}),
  };
  // Progress sent in order, and all of it before the result (the host drops progress after the response).
  let progressSent: Promise<void> = Promise.resolve();
  let forwarded = false;
  const onProgress = (progress: Record<string, unknown>) => {
    forwarded = true;
    const params = { ...progress, progressToken: token };
    progressSent = progressSent
      .then(() => extra.sendNotification({ method: 'notifications/progress', params }))
      .catch(() => {});
  };
  try {
    const result = await upstream.request(
      host,
      extra.requestId,
      withoutProgressToken(request),
      sdkOptions,
      hasToken ? onProgress : undefined,
    );
    if (inputRequired === 'refuse' && (result as { resultType?: unknown }).resultType === 'input_required') {
      throw new ForwardedError(
        -32603,
        `mcp-resilience: the upstream answered "${request.method}" with an input_required result (a 2026-07-28 multi-round-trip), which this proxy does not forward: it speaks 2025-11-25 with both sides`,
        { resultType: 'input_required' },
      );
    }
    await progressSent;
    // The SDK client drops a progress notification it handles after the response (it deletes the handler
    // first): a turn of the event loop lets the last one leave in a write of its own.
    if (forwarded) await new Promise((resolve) => setImmediate(resolve));
    return result as Record<string, unknown>;
  } catch (error) {
    throw toJsonRpcError(error);
  }
}

/** The request without the host's `progressToken` (the SDK sets its own when `onprogress` is given). */
function withoutProgressToken(request: JsonRpcRequestLike): JsonRpcRequestLike {
  const meta = request.params?._meta as Record<string, unknown> | undefined;
  const params =
    meta && 'progressToken' in meta
      ? (() => {
          const { progressToken: _, ...rest } = meta;
          const { _meta: __, ...others } = request.params ?? {};
          return Object.keys(rest).length > 0 ? { ...others, _meta: rest } : others;
        })()
      : request.params;
  return params === undefined ? { method: request.method } : { method: request.method, params };
}
