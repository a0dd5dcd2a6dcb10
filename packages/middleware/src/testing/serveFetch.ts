import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';

/**
 * Serves one `node:http` request with a web-standard handler (`(request: Request) => Promise<Response>`, as the
 * MCP SDK v2's `createMcpHandler().fetch` is) and streams its response back: the body is read in full, the
 * headers are copied (repeated ones joined), and a client that goes away aborts the request (the handler sees
 * `request.signal`: on 2026-07-28 over HTTP, that is how a request is cancelled). For test servers on 127.0.0.1.
 */
export async function serveFetch(
  fetch: (request: Request) => Promise<Response>,
  req: IncomingMessage,
  res: ServerResponse,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const aborted = new AbortController();
  res.on('close', () => aborted.abort());
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) headers.set(name, value.join(', '));
  }
  const body = chunks.length > 0 ? Buffer.concat(chunks) : undefined;
  const response = await fetch(
    new Request(`http://127.0.0.1${req.url ?? '/'}`, {
      method: req.method ?? 'GET',
      headers,
      ...(body && req.method !== 'GET' && req.method !== 'HEAD' ? { body } : {}),
      signal: aborted.signal,
    }),
  );
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) return void res.end();
  Readable.fromWeb(response.body as WebReadableStream).pipe(res);
}
