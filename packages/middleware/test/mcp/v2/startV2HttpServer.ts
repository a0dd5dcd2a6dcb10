import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { serveFetch } from '../../../src/testing/serveFetch.js';
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
    serveFetch(handler.fetch, req, res).catch((error: Error) => {
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
