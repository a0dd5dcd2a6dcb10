import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpResilienceOptions } from '@mcp-resilience/middleware/mcp';
import type { ForwardOptions } from '../host/forwardRequest.js';
import type { InputRoundsOptions } from '../host/InputRounds.js';
import type { AccessPolicy } from './checkRequest.js';
import type { GatewayConfig } from './GatewayConfig.js';
import { GatewaySessions } from './GatewaySessions.js';
import { reply } from './httpReplies.js';
import { loadGatewayConfig } from './loadGatewayConfig.js';
import { UpstreamPool } from './UpstreamPool.js';

/** Options of {@link startGateway}. All optional but the config (`configFile` or `config`). */
export interface GatewayOptions extends ForwardOptions, InputRoundsOptions {
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
  /**
   * At most this many calls of 2026-07-28 hosts whose `input_required` rounds (built from a 2025-era upstream's
   * server-to-client requests) wait for the host's repeat, over all servers; beyond, the upstream's request is
   * refused (`-32603`, naming this option).
   */
  readonly maxInputRounds?: number;
  /** A session without a request for this long is closed. */
  readonly sessionIdleMs?: number;
}

export const gatewayDefaults = {
  host: '127.0.0.1',
  port: 8787,
  maxBodyBytes: 4 * 1024 * 1024,
  maxBatch: 32,
  maxSessions: 1000,
  maxPendingRequests: 256,
  maxInputRounds: 256,
  sessionIdleMs: 10 * 60_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 65_000,
} as const;

/** A running gateway. */
export interface Gateway {
  /** `http://host:port`: each server is at `${url}/<name>/mcp`. */
  readonly url: string;
  /** The number of open host sessions. */
  sessions(): number;
  close(): Promise<void>;
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
  const hosts = new Set((options.allowedHosts ?? []).map((x) => x.toLowerCase()));
  const origins = new Set((options.allowedOrigins ?? []).map((x) => x.toLowerCase()));
  const policy: AccessPolicy = {
    hosts,
    origins,
    ...(options.token === undefined ? {} : { token: options.token }),
  };
  const sessions = new GatewaySessions(pool, policy, o, options);
  const http = createServer((req, res) => {
    sessions.handle(req, res).catch((error: unknown) => {
      reply(res, 500, -32603, `Internal error: ${(error as Error).message}`);
    });
  });
  http.headersTimeout = o.headersTimeoutMs;
  http.requestTimeout = o.requestTimeoutMs;
  // Node's default (5 s) closes idle keep-alive sockets while busy clients reuse them: "fetch failed"
  // (ECONNRESET) on the host. Longer than the hosts' idle reuse (undici keeps a socket up to the server's hint).
  http.keepAliveTimeout = o.keepAliveTimeoutMs;
  http.maxHeadersCount = 100;
  const sweep = setInterval(
    () => sessions.closeIdle(Date.now() - o.sessionIdleMs),
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
      await sessions.closeAll();
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
