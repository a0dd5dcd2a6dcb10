import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rpcError, sendJson } from './responses.js';

/**
 * Serves `route` on host:port; a request whose handling throws gets a JSON-RPC internal error (or its socket is
 * destroyed when the answer has started). Resolves once listening, rejects when the port cannot be bound.
 */
export async function listen(
  route: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  port: number,
  host: string,
): Promise<{ http: Server; address: AddressInfo }> {
  const http = createServer((req, res) => {
    route(req, res).catch(() => {
      if (res.headersSent) res.destroy();
      else sendJson(res, 500, rpcError(-32603, 'Internal server error'));
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(port, host, () => resolve());
  });
  return { http, address: http.address() as AddressInfo };
}
