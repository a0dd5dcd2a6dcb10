import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { FaultCore } from '../core/FaultCore.js';
import type { Fault } from '../plan/FaultPlan.js';
import { type BackendFactory, HttpSession } from './HttpSession.js';
import { answerHttpFault } from './httpFaults.js';
import { listen } from './listen.js';
import { readJsonRpc } from './readJsonRpc.js';
import { rpcError, sendJson, sendUnknownSession } from './responses.js';

export interface ChaosHttpFrontOptions {
  core: FaultCore;
  /** Default 127.0.0.1. */
  host?: string;
  /** Default 0: an ephemeral port. */
  port?: number;
  /** The backend of each new session: the chaos tools, or a spawned upstream. */
  createBackend: BackendFactory;
  /** What a `crash` takes down: every session, as a server restart does (default), or the request's session. */
  crashScope?: 'server' | 'session';
}

export interface ChaosHttpFront {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  readonly port: number;
  /** Closes every session and connection, then the listener. */
  close(): Promise<void>;
}

export const MCP_PATH = '/mcp';

/** `http://host:port/mcp` for a listening server. */
export function endpointUrl(address: AddressInfo): string {
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return `http://${host}:${address.port}${MCP_PATH}`;
}

/**
 * A Streamable HTTP endpoint (stateful sessions, `node:http`) that applies the fault plan: the HTTP-level
 * faults here, the JSON-RPC-level ones in each session's {@link ChaosConnection}. The chaos HTTP server and
 * the chaos proxy for stdio upstreams differ only in their session backends.
 */
export async function serveChaosHttp(options: ChaosHttpFrontOptions): Promise<ChaosHttpFront> {
  const { core, host = '127.0.0.1', port = 0, createBackend, crashScope = 'server' } = options;
  const sessions = new Map<string, HttpSession>();
  const hooks = {
    onInitialized: (session: HttpSession) => sessions.set(session.id, session),
    onDeleted: (session: HttpSession) => {
      if (sessions.get(session.id) === session) sessions.delete(session.id);
    },
  };

  const forget = (id: string) => {
    const session = sessions.get(id);
    sessions.delete(id);
    return session?.close();
  };

  /** Faults answered before the MCP layer. Returns false for the ones the session's connection applies. */
  const answerAtHttpLevel = (fault: Fault, req: IncomingMessage, res: ServerResponse, sessionId?: string) => {
    if (answerHttpFault(fault, req, res)) return true;
    switch (fault.kind) {
      case 'session_expired':
        if (sessionId) void forget(sessionId);
        sendUnknownSession(res, core.unknownSessionStatus);
        return true;
      case 'crash':
        if (crashScope === 'server') {
          for (const id of [...sessions.keys()]) void forget(id);
        } else if (sessionId) {
          const session = sessions.get(sessionId);
          sessions.delete(sessionId);
          session?.crash();
        }
        req.socket.destroy();
        return true;
      default:
        return false;
    }
  };

  const post = async (req: IncomingMessage, res: ServerResponse, sessionId?: string) => {
    const read = await readJsonRpc(req, res);
    if (!read) return;
    const { messages, requests } = read;
    let session = sessionId ? sessions.get(sessionId) : undefined;
    if (sessionId && !session) {
      core.reject(requests, { transport: 'http', sessionId });
      return sendUnknownSession(res, core.unknownSessionStatus);
    }
    if (!sessionId && !messages.some((message) => isInitializeRequest(message))) {
      core.reject(requests, { transport: 'http' });
      return sendJson(res, 400, rpcError(-32000, 'Bad Request: Mcp-Session-Id header is required'));
    }

    const id = sessionId ?? randomUUID();
    const admissions = core.admit(requests, { transport: 'http', sessionId: id });
    const fault = admissions[0]?.fault;
    if (fault && answerAtHttpLevel(fault, req, res, sessionId)) {
      for (const { entry } of admissions) core.log.settle(entry);
      return;
    }
    if (!session) {
      session = new HttpSession(id, core, hooks, createBackend);
      try {
        await session.start();
      } catch (error) {
        for (const { entry } of admissions) core.log.settle(entry);
        return sendJson(res, 502, rpcError(-32000, `Bad Gateway: ${(error as Error).message}`));
      }
    }
    session.expect(admissions);
    if (fault?.kind === 'reset_after' || fault?.kind === 'stream_broken') {
      // Bypass the transport: `reset_after` sends no response header before the socket dies; `stream_broken` opens
      // an SSE response (no event id: nothing to resume), then the socket dies once the request has executed.
      if (fault.kind === 'stream_broken') {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
        res.flushHeaders();
      }
      for (const admission of admissions) admission.onReset = () => req.socket.destroy();
      for (const message of messages) session.connection.receive(message);
      return;
    }
    await session.transport.handleRequest(req, res, read.json);
  };

  const route = async (req: IncomingMessage, res: ServerResponse) => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== MCP_PATH) {
      return sendJson(res, 404, rpcError(-32000, `Not found: the MCP endpoint is ${MCP_PATH}`));
    }
    const sessionId = req.headers['mcp-session-id'] as string | undefined;
    if (req.method === 'POST') return post(req, res, sessionId);
    if (req.method !== 'GET' && req.method !== 'DELETE') {
      return sendJson(res, 405, rpcError(-32000, 'Method not allowed.'), { allow: 'GET, POST, DELETE' });
    }
    if (!sessionId) {
      return sendJson(res, 400, rpcError(-32000, 'Bad Request: Mcp-Session-Id header is required'));
    }
    const session = sessions.get(sessionId);
    if (!session) return sendUnknownSession(res, core.unknownSessionStatus);
    await session.transport.handleRequest(req, res);
  };

  const { http, address } = await listen(route, port, host);

  return {
    url: endpointUrl(address),
    port: address.port,
    async close() {
      await Promise.all([...sessions.keys()].map(forget));
      core.log.flush();
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections();
      await closed;
    },
  };
}
