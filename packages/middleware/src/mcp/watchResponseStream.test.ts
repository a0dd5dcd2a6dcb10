import { describe, expect, it } from 'vitest';
import { observeFetch } from './observeFetch.js';
import { requestIdsOf, watchResponseStream } from './watchResponseStream.js';

const encoder = new TextEncoder();

/** An SSE response whose body sends `chunks` one read at a time (as a socket does), then ends or fails. */
function sse(chunks: string[], failure?: Error): Response {
  let next = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[next++];
      if (chunk !== undefined) controller.enqueue(encoder.encode(chunk));
      else if (failure) controller.error(failure);
      else controller.close();
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

/** Reads the watched body to its end (or its error), as the SDK does. */
async function drain(response: Response): Promise<string> {
  try {
    return await response.text();
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

const response = (id: number) => `data: {"jsonrpc":"2.0","id":${id},"result":{"content":[]}}\n\n`;
const progress = 'data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}\n\n';

describe('watchResponseStream', () => {
  it('reports the requests whose stream broke before their response, and passes the bytes through', async () => {
    const broken: unknown[] = [];
    const watched = watchResponseStream(
      sse([progress, response(1)], new TypeError('terminated')),
      [1, 2],
      undefined,
      (id, cause) => broken.push([id, (cause as Error).message]),
    );
    expect(await drain(watched)).toBe('error: terminated');
    expect(broken).toEqual([[2, 'terminated']]);
  });

  it('reports a stream that ended without the response', async () => {
    const broken: unknown[] = [];
    await drain(watchResponseStream(sse([progress]), [7], undefined, (id) => broken.push(id)));
    expect(broken).toEqual([7]);
  });

  it('reports nothing when the response arrived (split across chunks), the stream is resumable, or the client aborted', async () => {
    const broken: unknown[] = [];
    const whole = response(3);
    const text = await drain(
      watchResponseStream(sse([whole.slice(0, 20), whole.slice(20)]), [3], undefined, (id) =>
        broken.push(id),
      ),
    );
    expect(text).toBe(whole);
    await drain(
      watchResponseStream(sse(['id: 1\ndata: \n\n'], new Error('cut')), [4], undefined, (id) =>
        broken.push(id),
      ),
    );
    const aborted = new AbortController();
    aborted.abort();
    await drain(
      watchResponseStream(sse([], new Error('aborted')), [5], aborted.signal, (id) => broken.push(id)),
    );
    expect(broken).toEqual([]);
  });

  it('reads the request ids of a POST body: a message or a batch, requests only', () => {
    expect(requestIdsOf('{"jsonrpc":"2.0","id":0,"method":"tools/call"}')).toEqual([0]);
    expect(
      requestIdsOf('[{"jsonrpc":"2.0","id":"a","method":"x"},{"jsonrpc":"2.0","method":"notifications/y"}]'),
    ).toEqual(['a']);
    expect(requestIdsOf('not json')).toEqual([]);
    expect(requestIdsOf(undefined)).toEqual([]);
  });
});

describe('observeFetch().onStreamBroken', () => {
  it('watches the SSE answers of POSTs carrying requests, and stops calling a listener once unsubscribed', async () => {
    let answer = () => sse([progress], new TypeError('terminated'));
    const fetch = observeFetch(async () => answer());
    const seen: unknown[] = [];
    const unsubscribe = fetch.onStreamBroken((id) => seen.push(id));
    const post = (id: number) =>
      fetch('http://127.0.0.1/mcp', {
        method: 'POST',
        body: `{"jsonrpc":"2.0","id":${id},"method":"tools/call"}`,
      });
    await drain(await post(1));
    await drain(await fetch('http://127.0.0.1/mcp', { method: 'GET' }));
    answer = () => sse([response(2)]);
    await drain(await post(2));
    unsubscribe();
    answer = () => sse([], new TypeError('terminated'));
    await drain(await post(3));
    expect(seen).toEqual([1]);
  });
});
