/** A request id of JSON-RPC. */
export type RequestId = string | number;

/** Bytes of one SSE event kept for inspection; a larger event is passed on without being read. */
const MAX_EVENT_BYTES = 8 * 1024 * 1024;

/** The ids of the JSON-RPC requests in a POST body (a message or a batch), or none. */
export function requestIdsOf(body: unknown): RequestId[] {
  if (typeof body !== 'string') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [];
  }
  const messages = Array.isArray(parsed) ? parsed : [parsed];
  const ids: RequestId[] = [];
  for (const message of messages) {
    const { id, method } = (message ?? {}) as { id?: unknown; method?: unknown };
    if (typeof method === 'string' && (typeof id === 'string' || typeof id === 'number')) ids.push(id);
  }
  return ids;
}

/** Reads an SSE stream as it passes: which of the requests got their response, and whether it can be resumed. */
class PendingResponses {
  private readonly pending: Set<RequestId>;
  private readonly decoder = new TextDecoder();
  private resumable = false;
  /** An event too large to inspect was seen: the stream is no longer read. */
  private blind = false;
  private line = '';
  private data = '';

  constructor(
    ids: readonly RequestId[],
    private readonly signal: AbortSignal | null | undefined,
    private readonly onBroken: (id: RequestId, cause: unknown) => void,
  ) {
    this.pending = new Set(ids);
  }

  inspect(chunk: Uint8Array): void {
    if (this.blind) return;
    const lines = (this.line + this.decoder.decode(chunk, { stream: true })).split(/\r\n|\r|\n/);
    this.line = lines.pop() ?? '';
    for (const text of lines) {
      if (text === '') this.endEvent();
      else if (text.startsWith('id:')) this.resumable = true;
      else if (text.startsWith('data:'))
        this.data += (this.data === '' ? '' : '\n') + text.slice(text[5] === ' ' ? 6 : 5);
    }
    if (this.data.length + this.line.length > MAX_EVENT_BYTES) this.blind = true;
  }

  /** The stream ended (`cause`): every request still without its response is broken, unless it can resume. */
  ended(cause: unknown): void {
    if (this.blind || this.resumable || this.signal?.aborted) return;
    this.endEvent();
    for (const id of this.pending) this.onBroken(id, cause);
    this.pending.clear();
  }

  private endEvent(): void {
    if (this.data === '') return;
    try {
      const message = JSON.parse(this.data) as { id?: unknown; result?: unknown; error?: unknown };
      if ('result' in message || 'error' in message) this.pending.delete(message.id as RequestId);
    } catch {
      // not JSON: the SDK reports it
    }
    this.data = '';
  }
}

/**
 * Passes an SSE response body through unchanged, and calls `onBroken` for each request of `ids` whose response did
 * not arrive when the stream ended (an error, or an end without it) and cannot be resumed: the stream sent no event
 * id (2026-07-28 streams never do; a 2025-11-25 server without an event store neither). A stream that the client
 * aborted itself (`signal`: a cancellation, `close()`) is not broken.
 */
export function watchResponseStream(
  response: Response,
  ids: readonly RequestId[],
  signal: AbortSignal | null | undefined,
  onBroken: (id: RequestId, cause: unknown) => void,
): Response {
  const body = response.body;
  if (!body) return response;
  const watch = new PendingResponses(ids, signal, onBroken);
  const reader = body.getReader();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let read: ReadableStreamReadResult<Uint8Array>;
      try {
        read = await reader.read();
      } catch (error) {
        watch.ended(error);
        controller.error(error);
        return;
      }
      if (read.done) {
        watch.ended(new Error('the stream ended without the response'));
        controller.close();
        return;
      }
      watch.inspect(read.value);
      controller.enqueue(read.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  return new Response(stream, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}
