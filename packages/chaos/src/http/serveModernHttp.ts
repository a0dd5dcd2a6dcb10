import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { createMcpHandler } from '@modelcontextprotocol/server';
import type { ChaosCore } from '../core/ChaosCore.js';
import type { Admission } from '../core/FaultCore.js';
import { localOutcome } from '../core/outcomes.js';
import { answerHttpFault } from './httpFaults.js';
import { listen } from './listen.js';
import { readJsonRpc } from './readJsonRpc.js';
import { rpcError, sendJson, sendUnknownSession } from './responses.js';
import { type ChaosHttpFront, endpointUrl, MCP_PATH } from './serveChaosHttp.js';

/** The header that ties a forwarded request to its exchange, for the per-request server the SDK builds. */
const EXCHANGE_HEADER = 'x-mcp-chaos-exchange';

export interface ModernHttpOptions {
  core: ChaosCore;
  host?: string;
  port?: number;
}

/**
 * A Streamable HTTP endpoint speaking MCP 2026-07-28 (the SDK v2 `createMcpHandler`, legacy requests refused with
 * -32022): no sessions, one POST per request, its response a JSON body or an SSE stream. The fault plan applies
 * per request as on the 2025-11-25 server; besides, a client that closes a request's stream before its response
 * cancelled it (the revision's cancellation on HTTP): the ground-truth log records it (`via: 'stream_closed'`).
 */
export async function serveModernHttp(options: ModernHttpOptions): Promise<ChaosHttpFront> {
  const { core, host = '127.0.0.1', port = 0 } = options;
  const exchanges = new Map<string, Map<RequestId, Admission>>();
  let nextExchange = 0;
  const handler = createMcpHandler(
    (context) => {
      const admissions = exchanges.get(context.requestInfo?.headers.get(EXCHANGE_HEADER) ?? '');
      return core.createModernToolServer((requestId) => {
        const admission = admissions?.get(requestId);
        if (admission) admission.entry.executed = true;
      });
    },
    { legacy: 'reject' },
  );
  const open = new Set<ServerResponse>();
  const timers = new Set<NodeJS.Timeout>();

  const post = async (req: IncomingMessage, res: ServerResponse) => {
    const read = await readJsonRpc(req, res);
    if (!read) return;
    const { text, requests } = read;
    const admissions = core.admit(requests, { transport: 'http' });
    const settle = () => {
      for (const { entry } of admissions) core.log.settle(entry);
    };
    const fault = admissions[0]?.fault;
    if (fault && answerHttpFault(fault, req, res)) return settle();
    if (fault?.kind === 'session_expired') {
      // No sessions in this revision: a 404 (or 400) naming a session the client never had.
      sendUnknownSession(res, core.unknownSessionStatus);
      return settle();
    }
    if (fault?.kind === 'crash') {
      req.socket.destroy();
      return settle();
    }
    const [first] = requests;
    const outcome = first ? localOutcome(fault, first) : null;
    if (first && outcome) {
      const answer =
        'result' in outcome ? { result: { ...outcome.result, resultType: 'complete' } } : outcome;
      sendJson(res, 200, { jsonrpc: '2.0', id: first.id, ...answer });
      return settle();
    }

    // A client that closes the request's stream before the response cancels it.
    let answered = false;
    let destroyedHere = false;
    res.on('close', () => {
      open.delete(res);
      if (!answered && !destroyedHere) {
        for (const request of requests) core.cancelled(request.id, { transport: 'http' }, 'stream_closed');
      }
      settle();
    });
    open.add(res);
    if (fault?.kind === 'hang' && fault.delay === undefined) {
      settle(); // never answered: the entry is final now
      return;
    }
    if (fault?.kind === 'hang') {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          resolve();
        }, fault.delay);
        timers.add(timer);
      });
      if (res.destroyed) return;
    }
    if (fault?.kind === 'stream_broken') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.flushHeaders();
    }

    const exchange = String(++nextExchange);
    exchanges.set(exchange, new Map(admissions.map((admission) => [admission.entry.requestId, admission])));
    for (const { entry } of admissions) if (entry.method !== 'tools/call') entry.executed = true;
    const aborted = new AbortController();
    res.on('close', () => aborted.abort());
    try {
      const response = await handler.fetch(
        new Request(`http://${req.headers.host ?? '127.0.0.1'}${req.url ?? MCP_PATH}`, {
          method: 'POST',
          headers: forwardedHeaders(req, exchange),
          body: text,
          signal: aborted.signal,
        }),
      );
      if (fault?.kind === 'reset_after' || fault?.kind === 'stream_broken') {
        // The request executes (its response is produced), then the connection dies before it is delivered.
        await response.arrayBuffer().catch(() => undefined);
        destroyedHere = true;
        req.socket.destroy();
        return;
      }
      if (res.destroyed) return;
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (!response.body) {
        answered = true;
        res.end();
        return;
      }
      const stream = Readable.fromWeb(response.body as NodeReadableStream);
      stream.on('end', () => {
        answered = true;
      });
      stream.pipe(res);
    } finally {
      exchanges.delete(exchange);
    }
  };

  const route = async (req: IncomingMessage, res: ServerResponse) => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== MCP_PATH) {
      return sendJson(res, 404, rpcError(-32000, `Not found: the MCP endpoint is ${MCP_PATH}`));
    }
    if (req.method === 'POST') return post(req, res);
    // 2026-07-28 has no standalone GET stream and no session to DELETE.
    return sendJson(res, 405, rpcError(-32000, 'Method not allowed.'), { allow: 'POST' });
  };

  const { http, address } = await listen(route, port, host);
  return {
    url: endpointUrl(address),
    port: address.port,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      for (const res of open) res.destroy();
      await handler.close();
      core.log.flush();
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections();
      await closed;
    },
  };
}

function forwardedHeaders(req: IncomingMessage, exchange: string): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) headers.set(name, value.join(', '));
  }
  headers.set(EXCHANGE_HEADER, exchange);
  return headers;
}
