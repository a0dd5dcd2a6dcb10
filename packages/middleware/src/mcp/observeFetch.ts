/** What the last failed HTTP response said, for the classifier: the SDK's errors drop the headers. */
export interface HttpFailure {
  readonly status: number;
  /** From `Retry-After` (seconds or an HTTP date), when present. */
  readonly retryAfterMs?: number;
  /** Epoch milliseconds when it was seen. */
  readonly at: number;
}

export type ObservedFetch = typeof fetch & {
  /** The last response with a status >= 400, if any. */
  readonly lastFailure: () => HttpFailure | undefined;
};

/**
 * Wraps `fetch` so that the status and `Retry-After` of failed responses are recorded. Pass the result both to
 * `StreamableHTTPClientTransport` (or `SSEClientTransport`) as `fetch`, and to `withResilience` as `fetch`.
 *
 * @example
 * const fetch = observeFetch();
 * await client.connect(new StreamableHTTPClientTransport(url, { fetch }));
 * const resilient = withResilience(client, { server: 'weather', fetch });
 */
export function observeFetch(base: typeof fetch = globalThis.fetch, now: () => number = Date.now): ObservedFetch {
  let last: HttpFailure | undefined;
  const observed = async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    const response = await base(input, init);
    if (response.status >= 400) {
      const retryAfterMs = parseRetryAfter(response.headers.get('retry-after'), now());
      last = { status: response.status, at: now(), ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
    }
    return response;
  };
  return Object.assign(observed, { lastFailure: () => last }) as ObservedFetch;
}

function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
