/**
 * The response stream of a request broke before the response arrived, and the transport cannot resume it: the
 * request is lost (MCP 2026-07-28 removed `Last-Event-ID` resumption; the client must re-issue it with a new
 * request id). Without this error the SDK would wait for its request timeout.
 */
export class StreamBrokenError extends Error {
  override readonly name = 'StreamBrokenError';
  constructor(
    readonly requestId: string | number,
    cause?: unknown,
  ) {
    super(
      `the response stream of request ${requestId} broke before its response${
        cause instanceof Error ? `: ${cause.message}` : ''
      }`,
      cause === undefined ? undefined : { cause },
    );
  }
}
