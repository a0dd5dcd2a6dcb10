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
  const pending = new Set<RequestId>(ids);
  const decoder = new TextDecoder();
  let resumable = false;
  let blind = false;
  let line = '';
  let data = '';

  const endEvent = () => {
    if (data === '') return;
    try {
      const message = JSON.parse(data) as { id?: unknown; result?: unknown; error?: unknown };
      if ('result' in message || 'error' in message) pending.delete(message.id as RequestId);
    } catch {
      // not JSON: the SDK reports it
    }
    data = '';
  };
  const inspect = (chunk: Uint8Array) => {
    if (blind) return;
    const lines = (line + decoder.decode(chunk, { stream: true })).split(/\r\n|\r|\n/);
    line = lines.pop() ?? '';
    for (const text of lines) {
      if (text === '') endEvent();
      else if (text.startsWith('id:')) resumable = true;
      else if (text.startsWith('data:'))
        data += (data === '' ? '' : '\n') + text.slice(text[5] === ' ' ? 6 : 5);
    }
    if (data.length + line.length > MAX_EVENT_BYTES) blind = true;
  };
  const ended = (cause: unknown) => {
    if (blind || resumable || signal?.aborted) return;
    endEvent();
    for (const id of pending) onBroken(id, cause);
    pending.clear();
  };

  const reader = body.getReader();
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      let read: ReadableStreamReadResult<Uint8Array>;
      try {
        read = await reader.read();
      } catch (error) {
        ended(error);
        controller.error(error);
        return;
      }
      if (read.done) {
        ended(new Error('the stream ended without the response'));
        controller.close();
        return;
      }
      inspect(read.value);
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
