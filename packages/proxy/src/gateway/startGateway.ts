import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpResilienceOptions } from '@mcp-resilience/middleware/mcp';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { createHostServer } from '../host/createHostServer.js';
import type { ForwardOptions } from '../host/forwardRequest.js';
import { type AccessPolicy, checkRequest } from './checkRequest.js';
import type { GatewayConfig } from './GatewayConfig.js';
import { loadGatewayConfig } from './loadGatewayConfig.js';
import { readJsonBody } from './readJsonBody.js';
import { UpstreamPool } from './UpstreamPool.js';

/** Options of {@link startGateway}. All optional but the config (`configFile` or `config`). */
export interface GatewayOptions extends ForwardOptions {
  readonly configFile?: string;
  readonly config?: GatewayConfig;
  readonly host?: string;
  /** 0 picks a free port. */
  readonly port?: number;
  readonly token?: string;
  /** Origins (`http://localhost:3000`) allowed for browser hosts, besides the gateway's own. */
  readonly allowedOrigins?: readonly string[];
  /** `Host` header values (`gateway:8787`) accepted besides the gateway's own address. */
  readonly allowedHosts?: readonly string[];
  /** Resilience options for every server (a server's `resilience` in the config wins). */
  readonly resilience?: McpResilienceOptions;
  readonly maxBodyBytes?: number;
  readonly maxBatch?: number;
  readonly maxSessions?: number;
  readonly maxPendingRequests?: number;
  /** A session without a request for this long is closed. */
  readonly sessionIdleMs?: number;
}

export const gatewayDefaults = {
  host: '127.0.0.1',
  port: 8787,
  maxBodyBytes: 4 * 1024 * 1024,
  maxBatch: 32,
  maxSessions: 1000,
  maxPendingRequests: 64,
  sessionIdleMs: 10 * 60_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
} as const;

/** A running gateway. */
export interface Gateway {
  /** `http://host:port`: each server is at `${url}/<name>/mcp`. */
  readonly url: string;
  /** The number of open host sessions. */
  sessions(): number;
  close(): Promise<void>;
}

interface Session {
  readonly name: string;
  readonly transport: StreamableHTTPServerTransport;
  lastSeen: number;
}

/**
 * `mcp-resilience gateway`: Streamable HTTP to hosts, each server of an `mcpServers` config at `/<name>/mcp`,
 * behind one shared resilient upstream connection per server. Binds 127.0.0.1 by default, checks `Host` and
 * `Origin` (DNS rebinding), an optional bearer token, and bounds bodies, batches, sessions, pending requests
 * per session and idle sessions.
 */
export async function startGateway(options: GatewayOptions): Promise<Gateway> {
  const config = options.config ?? (await loadConfig(options.configFile));
  const o = { ...gatewayDefaults, ...options };
  const pool = new UpstreamPool(config, options.resilience ?? {});
  const sessions = new Map<string, Session>();
  const hosts = new Set((options.allowedHosts ?? []).map((x) => x.toLowerCase()));
  const origins = new Set((options.allowedOrigins ?? []).map((x) => x.toLowerCase()));
  const policy: AccessPolicy = {
    hosts,
    origins,
    ...(options.token === undefined ? {} : { token: options.token }),
  };
  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) =>
      reply(res, 500, -32603, `Internal error: ${(error as Error).message}`),
    );
  });
  http.headersTimeout = o.headersTimeoutMs;
  http.requestTimeout = o.requestTimeoutMs;
  http.maxHeadersCount = 100;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const name = /^\/([^/?]+)\/mcp(?:\?.*)?$/.exec(req.url ?? '')?.[1];
    const verdict = checkRequest(req, { ...policy, ...(req.url === '/healthz' ? { token: undefined } : {}) });
    if (!verdict.ok) return reply(res, verdict.status, -32000, verdict.message);
    if (req.url === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return void res.end(JSON.stringify({ status: 'ok', sessions: sessions.size }));
    }
    if (name === undefined || !pool.has(name)) {
      return reply(res, 404, -32601, `Not Found: no server at ${req.url} (servers are at /<name>/mcp)`);
    }
    const sid = req.headers['mcp-session-id'];
    let body: unknown;
    if (req.method === 'POST') {
      const read = await readJsonBody(req, o.maxBodyBytes, o.maxBatch);
      if (!read.ok) return reply(res, read.status, -32600, read.message);
      body = read.json;
    }
    if (typeof sid === 'string') {
      const session = sessions.get(sid);
      if (!session || session.name !== name) return reply(res, 404, -32001, 'Session not found');
      session.lastSeen = Date.now();
      cancelOnClose(req, res, session.transport, body);
      return session.transport.handleRequest(req, res, body);
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      return reply(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required');
    }
    if (sessions.size >= o.maxSessions) {
      return reply(res, 503, -32000, `Service Unavailable: ${o.maxSessions} sessions are open (the limit)`);
    }
    const upstream = await pool.get(name).catch((error: unknown) => error as Error);
    if (upstream instanceof Error) {
      return reply(
        res,
        502,
        -32603,
        `mcp-resilience: upstream "${name}" is unavailable: ${upstream.message}`,
      );
    }
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => void sessions.set(id, { name, transport, lastSeen: Date.now() }),
    });
    const server = createHostServer(upstream, { ...options, maxPendingRequests: o.maxPendingRequests });
    await server.connect(transport);
    const onclose = transport.onclose;
    transport.onclose = () => {
      if (transport.sessionId) sessions.delete(transport.sessionId);
      onclose?.();
    };
    return transport.handleRequest(req, res, body);
  }

  const sweep = setInterval(
    () => {
      const cutoff = Date.now() - o.sessionIdleMs;
      for (const session of sessions.values()) {
        if (session.lastSeen < cutoff) void session.transport.close().catch(() => {});
      }
    },
    Math.min(60_000, Math.max(1000, o.sessionIdleMs / 4)),
  );
  sweep.unref();

  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(o.port, o.host, () => resolve());
  });
  const { port } = http.address() as AddressInfo;
  const hostPart = o.host.includes(':') ? `[${o.host}]` : o.host;
  for (const h of [hostPart, 'localhost', '127.0.0.1', '[::1]']) hosts.add(`${h}:${port}`.toLowerCase());
  origins.add(`http://${hostPart}:${port}`.toLowerCase());
  origins.add(`http://localhost:${port}`);
  pool.warmUp();
  return {
    url: `http://${hostPart}:${port}`,
    sessions: () => sessions.size,
    close: async () => {
      clearInterval(sweep);
      await Promise.allSettled([...sessions.values()].map((s) => s.transport.close()));
      await pool.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

async function loadConfig(file: string | undefined): Promise<GatewayConfig> {
  if (file === undefined) throw new TypeError('startGateway: option configFile or config is required');
  return loadGatewayConfig(file);
}

/** A host that closes its POST before the answer cancels the requests in it (`notifications/cancelled`). */
function cancelOnClose(
  req: IncomingMessage,
  res: ServerResponse,
  transport: StreamableHTTPServerTransport,
  body: unknown,
) {
  if (req.method !== 'POST') return;
  const ids = (Array.isArray(body) ? body : [body])
    .filter((m) => typeof m?.method === 'string' && (typeof m.id === 'string' || typeof m.id === 'number'))
    .map((m) => m.id as string | number);
  if (ids.length === 0) return;
  res.once('close', () => {
    if (res.writableFinished) return;
    for (const requestId of ids) {
      transport.onmessage?.({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId, reason: 'the host closed its HTTP request' },
      });
    }
  });
}

function reply(res: ServerResponse, status: number, code: number, message: string): void {
  if (res.headersSent) return void res.end();
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
