import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { createV2ToolServer, newV2Log, type V2ServerLog } from './v2ToolServer.js';

export interface V2HttpServer {
  readonly url: string;
  readonly log: V2ServerLog;
  close(): Promise<void>;
}

/**
 * A v2 SDK MCP server on Streamable HTTP (`createMcpHandler`: 2026-07-28 per request, 2025-era requests served
 * statelessly), behind `node:http` on 127.0.0.1, an ephemeral port.
 */
export async function startV2HttpServer(): Promise<V2HttpServer> {
  const log = newV2Log();
  const handler = createMcpHandler(() => createV2ToolServer(log));
  const http = createServer((req, res) => {
    serve(handler.fetch, req, res).catch((error: Error) => {
      if (!res.headersSent) res.writeHead(500).end(error.message);
      else res.destroy();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    log,
    async close() {
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** `node:http` to the web-standard handler and back; a client that goes away aborts the request. */
async function serve(
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
  Readable.fromWeb(response.body as import('node:stream/web').ReadableStream).pipe(res);
}
