import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createHostServer } from '../host/createHostServer.js';
import type { ForwardOptions } from '../host/forwardRequest.js';
import type { InputRoundsOptions } from '../host/InputRounds.js';
import { type AccessPolicy, checkRequest } from './checkRequest.js';
import { cancelOnClose, reply } from './httpReplies.js';
import { isModernRequest, ModernHosts } from './ModernHosts.js';
import { readJsonBody } from './readJsonBody.js';
import type { UpstreamPool } from './UpstreamPool.js';

interface Session {
  readonly name: string;
  readonly transport: StreamableHTTPServerTransport;
  lastSeen: number;
}

/** The bounds a session is held to. */
export interface SessionLimits {
  readonly maxBodyBytes: number;
  readonly maxBatch: number;
  readonly maxSessions: number;
  readonly maxPendingRequests: number;
  /** At most this many calls of 2026-07-28 hosts with `input_required` rounds pending (over all servers). */
  readonly maxInputRounds: number;
}

/**
 * The gateway's host sessions: one SDK Streamable HTTP transport and host-facing `Server` each. Hosts on
 * 2026-07-28, which has no sessions, go to {@link ModernHosts} (at most `maxSessions` requests in flight).
 */
export class GatewaySessions {
  private readonly sessions = new Map<string, Session>();
  private readonly modern: ModernHosts;

  constructor(
    private readonly pool: UpstreamPool,
    private readonly policy: AccessPolicy,
    private readonly limits: SessionLimits,
    private readonly forward: ForwardOptions & InputRoundsOptions,
  ) {
    this.modern = new ModernHosts(pool, {
      ...forward,
      maxRequests: limits.maxSessions,
      maxInputRounds: limits.maxInputRounds,
    });
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Answers one HTTP request: checks, then the session's transport (a new session for an `initialize`). */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const health = req.url === '/healthz';
    const verdict = checkRequest(req, health ? { ...this.policy, token: undefined } : this.policy);
    if (!verdict.ok) return reply(res, verdict.status, -32000, verdict.message);
    if (health) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ status: 'ok', sessions: this.sessions.size }));
    }
    const name = /^\/([^/?]+)\/mcp(?:\?.*)?$/.exec(req.url ?? '')?.[1];
    if (name === undefined || !this.pool.has(name)) {
      return reply(res, 404, -32601, `Not Found: no server at ${req.url} (servers are at /<name>/mcp)`);
    }
    let body: unknown;
    if (req.method === 'POST') {
      const read = await readJsonBody(req, this.limits.maxBodyBytes, this.limits.maxBatch);
      if (!read.ok) return reply(res, read.status, -32600, read.message);
      body = read.json;
    }
    const sid = req.headers['mcp-session-id'];
    if (typeof sid === 'string') {
      const session = this.sessions.get(sid);
      if (!session || session.name !== name) return reply(res, 404, -32001, 'Session not found');
      session.lastSeen = Date.now();
      cancelOnClose(req, res, session.transport, body);
      return session.transport.handleRequest(req, res, body);
    }
    if (isModernRequest(req)) return this.modern.handle(name, req, res, body);
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      return reply(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    }
    return this.open(name, req, res, body);
  }

  /** Closes the sessions without a request since `cutoff` (epoch ms). */
  closeIdle(cutoff: number): void {
    for (const session of this.sessions.values()) {
      if (session.lastSeen < cutoff) void session.transport.close().catch(() => {});
    }
  }

  async closeAll(): Promise<void> {
    await Promise.allSettled([...this.sessions.values()].map((s) => s.transport.close()));
    await this.modern.close();
  }

  /** A new host session on server `name`, answering its `initialize`. */
  private async open(name: string, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const max = this.limits.maxSessions;
    if (this.sessions.size >= max) {
      return reply(res, 503, -32000, `Service Unavailable: ${max} sessions are open (the limit)`);
    }
    const upstream = await this.pool.get(name).catch((error: unknown) => error as Error);
    if (upstream instanceof Error) {
      const message = `mcp-resilience: upstream "${name}" is unavailable: ${upstream.message}`;
      return reply(res, 502, -32603, message);
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => void this.sessions.set(id, { name, transport, lastSeen: Date.now() }),
    });
    const { maxPendingRequests } = this.limits;
    const server = createHostServer(upstream, { ...this.forward, maxPendingRequests });
    await server.connect(transport);
    const onclose = transport.onclose;
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
      onclose?.();
    };
    return transport.handleRequest(req, res, body);
  }
}
