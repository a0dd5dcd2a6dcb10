/** A `fetch` as the SDK transports of both lines take it. */
export type FetchLike = (url: string | URL, init?: RequestInit) => Promise<Response>;

import { parseRetryAfterHeader } from '../classify/retryAfter.js';
import { type RequestId, requestIdsOf, watchResponseStream } from './watchResponseStream.js';

/** What a failed HTTP response said, for the classifier: the SDK's errors drop the headers. */
export interface HttpFailure {
  /** Increasing per `observeFetch()` instance, from 1. */
  readonly seq: number;
  readonly status: number;
  /** From `Retry-After` (delay-seconds or an HTTP date), when present. */
  readonly retryAfterMs?: number;
  /** Epoch milliseconds when it was seen. */
  readonly at: number;
}

/** A `fetch` for the SDK's HTTP transports that remembers the status and `Retry-After` of failed responses. */
export type ObservedFetch = FetchLike & {
  /** The last response with a status >= 400, if any. */
  readonly lastFailure: () => HttpFailure | undefined;
  /** The `seq` of the last failure recorded so far (0 when none): a mark for {@link ObservedFetch.failuresSince}. */
  readonly mark: () => number;
  /** The failures recorded after `mark` (at most the last 32), oldest first. */
  readonly failuresSince: (mark: number) => readonly HttpFailure[];
  /**
   * Calls `listener` with the JSON-RPC id of each request whose SSE response stream broke (or ended) before its
   * response and cannot be resumed: the request is lost. Returns the unsubscribe function.
   */
  readonly onStreamBroken: (listener: (requestId: RequestId, cause: unknown) => void) => () => void;
};

/** How many failures are kept. */
const KEPT = 32;

/**
 * Wraps `fetch` so that the status and `Retry-After` of failed responses (status >= 400) are recorded. Pass the
 * result both to `StreamableHTTPClientTransport` (or `SSEClientTransport`) as `fetch`, and to `withResilience` as
 * `fetch`: the classifier then sees the `Retry-After` of a 429 or 503, which the SDK's errors do not carry. Give
 * the same `observeFetch()` to the transports that `reconnect` creates.
 *
 * @example
 * const fetch = observeFetch();
 * await client.connect(new StreamableHTTPClientTransport(url, { fetch }));
 * const resilient = withResilience(client, { server: 'weather', fetch });
 */
export function observeFetch(
  base: FetchLike = (url, init) => globalThis.fetch(url, init),
  now: () => number = Date.now,
): ObservedFetch {
  const failures: HttpFailure[] = [];
  const brokenListeners = new Set<(requestId: RequestId, cause: unknown) => void>();
  let seq = 0;
  const observed: FetchLike = async (url, init) => {
    const response = await base(url, init);
    const type = response.headers.get('content-type') ?? '';
    if (init?.method === 'POST' && response.ok && /^\s*text\/event-stream/i.test(type)) {
      const ids = requestIdsOf(init.body);
      if (ids.length > 0) {
        return watchResponseStream(response, ids, init.signal, (id, cause) => {
          for (const listener of [...brokenListeners]) listener(id, cause);
        });
      }
    }
    if (response.status >= 400) {
      const at = now();
      const retryAfterMs = parseRetryAfterHeader(response.headers.get('retry-after'), at);
      failures.push({
        seq: ++seq,
        status: response.status,
        at,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      });
      if (failures.length > KEPT) failures.shift();
    }
    return response;
  };
  return Object.assign(observed, {
    lastFailure: () => failures.at(-1),
    mark: () => seq,
    failuresSince: (mark: number) => failures.filter((failure) => failure.seq > mark),
    onStreamBroken: (listener: (requestId: RequestId, cause: unknown) => void) => {
      brokenListeners.add(listener);
      return () => brokenListeners.delete(listener);
    },
  });
}
