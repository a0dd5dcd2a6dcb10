import {
  type Agent,
  Agent as HttpAgent,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isJSONRPCRequest, type JSONRPCRequest, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Admission, FaultCore, Origin } from '../core/FaultCore.js';
import { localOutcome } from '../core/outcomes.js';
import { answerHttpFault } from '../http/httpFaults.js';
import { listen } from '../http/listen.js';
import { readBody } from '../http/readBody.js';
import { rpcError, sendJson, sendUnknownSession } from '../http/responses.js';
import { type ChaosHttpFront, endpointUrl, MCP_PATH } from '../http/serveChaosHttp.js';

export interface HttpProxyOptions {
  core: FaultCore;
  upstream: URL;
  host?: string;
  port?: number;
}

/** Headers that belong to one hop, not to the exchange: never forwarded. */
const hopByHop = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
]);

function endToEnd(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const kept: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !hopByHop.has(name)) kept[name] = value;
  }
  return kept;
}

const single = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

/**
 * A reverse proxy in front of a Streamable HTTP MCP server: every HTTP exchange goes through unchanged (headers
 * such as `mcp-session-id` and `mcp-protocol-version`, SSE responses streamed as they come, GET streams,
 * DELETE), except the requests the fault plan picks, which get their fault here instead.
 */
export async function serveHttpProxy(options: HttpProxyOptions): Promise<ChaosHttpFront> {
  const { core, upstream, host = '127.0.0.1', port = 0 } = options;
  const https = upstream.protocol === 'https:';
  const agent: Agent = https ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const send = https ? httpsRequest : httpRequest;
  /** Upstream sessions seen in responses, with the headers that reached them (to delete them when forgotten). */
  const known = new Map<string, OutgoingHttpHeaders>();
  /** Sessions a `session_expired` or `crash` made the proxy forget: answered as unknown from then on. */
  const expired = new Set<string>();
  /** Client responses in progress, by session: cut when their session is forgotten. */
  const open = new Map<string, Set<ServerResponse>>();
  const everyResponse = new Set<ServerResponse>();
  const timers = new Set<NodeJS.Timeout>();

  const track = (res: ServerResponse, sessionId: string | undefined) => {
    everyResponse.add(res);
    let set: Set<ServerResponse> | undefined;
    if (sessionId) {
      set = open.get(sessionId) ?? new Set();
      open.set(sessionId, set);
      set.add(res);
    }
    res.once('close', () => {
      everyResponse.delete(res);
      set?.delete(res);
      if (sessionId && set?.size === 0 && open.get(sessionId) === set) open.delete(sessionId);
    });
  };

  /** The upstream session is gone for the client: its streams are cut and the upstream is told to drop it. */
  const forget = (sessionId: string, headers: OutgoingHttpHeaders | undefined) => {
    expired.add(sessionId);
    for (const res of open.get(sessionId) ?? []) res.destroy();
    open.delete(sessionId);
    const reached = known.get(sessionId) ?? headers;
    known.delete(sessionId);
    if (!reached) return;
    const { 'content-type': _type, 'content-length': _length, ...rest } = reached;
    const deletion = send(upstream, {
      method: 'DELETE',
      agent,
      headers: { ...rest, host: upstream.host, 'mcp-session-id': sessionId },
    });
    deletion.on('response', (response) => response.resume()).on('error', () => undefined);
    deletion.end();
  };

  interface Forwarding {
    body?: string;
    admissions?: readonly Admission[];
    /** `reset_after`: wait for the answers, then destroy the client's socket instead of answering. */
    resetAfter?: boolean;
  }

  const forward = (req: IncomingMessage, res: ServerResponse, forwarding: Forwarding = {}) => {
    const { body, admissions = [], resetAfter = false } = forwarding;
    const sessionId = single(req.headers['mcp-session-id']);
    const headers: OutgoingHttpHeaders = { ...endToEnd(req.headers), host: upstream.host };
    if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
    const settle = () => {
      for (const { entry } of admissions) core.log.settle(entry);
    };
    const outgoing = send(upstream, { method: req.method, headers, agent });
    let complete = false;
    track(res, sessionId);
    res.once('close', () => {
      if (!complete) outgoing.destroy();
      settle();
    });
    outgoing.once('finish', () => {
      for (const { entry } of admissions) entry.executed = true;
    });
    outgoing.once('error', (error) => {
      settle();
      if (resetAfter || res.headersSent) res.destroy();
      else sendJson(res, 502, rpcError(-32000, `Bad Gateway: ${error.message}`));
    });
    outgoing.once('response', (incoming) => {
      incoming.once('end', () => {
        complete = true;
      });
      const upstreamSession = single(incoming.headers['mcp-session-id']) ?? sessionId;
      if (upstreamSession) {
        if (incoming.headers['mcp-session-id'] && (incoming.statusCode ?? 500) < 300) {
          known.set(upstreamSession, headers);
        }
        for (const { entry } of admissions) entry.sessionId ??= upstreamSession;
        if (!sessionId) track(res, upstreamSession);
      }
      if (req.method === 'DELETE' && sessionId && (incoming.statusCode ?? 500) < 300) known.delete(sessionId);
      if (resetAfter) {
        whenAnswered(
          incoming,
          admissions.map(({ entry }) => entry.requestId),
        ).then(() => {
          req.socket.destroy();
          outgoing.destroy();
        });
        return;
      }
      if (res.destroyed) {
        incoming.resume();
        return;
      }
      res.writeHead(incoming.statusCode ?? 502, incoming.statusMessage, endToEnd(incoming.headers));
      res.flushHeaders();
      incoming.pipe(res);
      incoming.once('error', () => res.destroy());
      incoming.once('aborted', () => res.destroy());
    });
    outgoing.end(body);
  };

  /** `hang` without a delay: the SSE response opens and stays silent. */
  const hang = (res: ServerResponse, sessionId: string | undefined) => {
    const headers: OutgoingHttpHeaders = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };
    if (sessionId) headers['mcp-session-id'] = sessionId;
    track(res, sessionId);
    res.writeHead(200, headers).flushHeaders();
  };

  const post = async (req: IncomingMessage, res: ServerResponse, sessionId?: string) => {
    const text = await readBody(req);
    if (text === null) return sendJson(res, 413, rpcError(-32000, 'Payload too large'));
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return forward(req, res, { body: text }); // not JSON-RPC: the upstream answers it
    }
    const requests = (Array.isArray(body) ? body : [body]).filter((message): message is JSONRPCRequest =>
      isJSONRPCRequest(message),
    );
    // Without a session id (initialize), the entries get the upstream's once it answers.
    const origin: Origin = { transport: 'http', sessionId };
    if (sessionId && expired.has(sessionId)) {
      core.reject(requests, origin);
      return sendUnknownSession(res, core.unknownSessionStatus);
    }
    const admissions = core.admit(requests, origin);
    const fault = admissions[0]?.fault;
    const settle = () => {
      for (const { entry } of admissions) core.log.settle(entry);
    };
    if (fault && answerHttpFault(fault, req, res)) return settle();
    switch (fault?.kind) {
      case 'invalid_params':
      case 'mcp_error':
      case 'tool_error': {
        const answers = requests.map((request) => ({
          jsonrpc: '2.0',
          id: request.id,
          ...localOutcome(fault, request),
        }));
        sendJson(
          res,
          200,
          Array.isArray(body) ? answers : answers[0],
          sessionId ? { 'mcp-session-id': sessionId } : {},
        );
        return settle();
      }
      case 'session_expired':
        if (sessionId) forget(sessionId, endToEnd(req.headers));
        sendUnknownSession(res, core.unknownSessionStatus);
        return settle();
      case 'crash':
        // As after a restart: every session the upstream had is gone.
        for (const id of new Set([...known.keys(), ...(sessionId ? [sessionId] : [])]))
          forget(id, endToEnd(req.headers));
        req.socket.destroy();
        return settle();
      case 'hang':
        if (fault.delay === undefined) {
          hang(res, sessionId);
          return settle();
        }
        {
          const timer = setTimeout(() => {
            timers.delete(timer);
            forward(req, res, { body: text, admissions });
          }, fault.delay);
          timers.add(timer);
        }
        return;
      case 'reset_after':
        return forward(req, res, { body: text, admissions, resetAfter: true });
      case 'stream_broken':
        // An SSE response opens (no event id: nothing to resume); it dies once the upstream has answered.
        hang(res, sessionId);
        return forward(req, res, { body: text, admissions, resetAfter: true });
      default:
        return forward(req, res, { body: text, admissions });
    }
  };

  const route = async (req: IncomingMessage, res: ServerResponse) => {
    if (new URL(req.url ?? '/', 'http://localhost').pathname !== MCP_PATH) {
      return sendJson(res, 404, rpcError(-32000, `Not found: the MCP endpoint is ${MCP_PATH}`));
    }
    const sessionId = single(req.headers['mcp-session-id']);
    if (req.method === 'POST') return post(req, res, sessionId);
    if (sessionId && expired.has(sessionId) && (req.method === 'GET' || req.method === 'DELETE')) {
      return sendUnknownSession(res, core.unknownSessionStatus);
    }
    forward(req, res);
  };

  const { http, address } = await listen(route, port, host);

  return {
    url: endpointUrl(address),
    port: address.port,
    async close() {
      for (const timer of timers) clearTimeout(timer);
      for (const res of everyResponse) res.destroy();
      core.log.flush();
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections();
      agent.destroy();
      await closed;
    },
  };
}

/**
 * Resolves once the upstream has answered every one of `ids` (read from its SSE events), or its response is
 * over (a JSON body, a compressed stream, a stream that ends).
 */
function whenAnswered(incoming: IncomingMessage, ids: readonly RequestId[]): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      incoming.removeAllListeners('data');
      incoming.resume();
      resolve();
    };
    incoming.once('end', done).once('close', done).once('error', done);
    const type = single(incoming.headers['content-type']) ?? '';
    const waiting = new Set(ids);
    if (!type.startsWith('text/event-stream') || incoming.headers['content-encoding'] || waiting.size === 0) {
      incoming.resume();
      return;
    }
    incoming.setEncoding('utf8');
    let buffer = '';
    incoming.on('data', (chunk: string) => {
      buffer += chunk;
      const events = buffer.split(/\r?\n\r?\n/);
      buffer = events.pop() ?? '';
      for (const event of events) {
        const data = event
          .split(/\r?\n/)
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).replace(/^ /, ''))
          .join('\n');
        for (const message of parseMessages(data)) {
          if ('id' in message && !('method' in message)) waiting.delete(message.id as RequestId);
        }
      }
      if (waiting.size === 0) done();
    });
  });
}

function parseMessages(data: string): object[] {
  try {
    const parsed: unknown = JSON.parse(data);
    return (Array.isArray(parsed) ? parsed : [parsed]).filter(
      (item): item is object => typeof item === 'object' && item !== null,
    );
  } catch {
    return [];
  }
}
