import { FaultCore, type FaultOptions } from '../core/FaultCore.js';
import { serveChaosHttp } from '../http/serveChaosHttp.js';
import type { GroundTruthEntry } from '../log/GroundTruthLog.js';
import type { FaultPlan } from '../plan/FaultPlan.js';
import { type StdioUpstream, stdioBackend } from './StdioBridge.js';
import { serveHttpProxy } from './serveHttpProxy.js';

export type { StdioUpstream } from './StdioBridge.js';

/** A Streamable HTTP MCP server to put the plan in front of. */
export interface HttpUpstream {
  /** Its MCP endpoint, e.g. `http://127.0.0.1:3001/mcp`. */
  url: string | URL;
}

export interface ChaosProxyOptions extends FaultOptions {
  /** The real MCP server: a Streamable HTTP endpoint, or a command the proxy spawns for each session (stdio). */
  upstream: HttpUpstream | StdioUpstream;
  /** Default 0: an ephemeral port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
}

export interface ChaosProxy {
  /** The proxy's MCP endpoint (Streamable HTTP), `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  readonly port: number;
  /** The ground-truth log, one entry per JSON-RPC request, live. `executed`: the request was forwarded. */
  readonly log: readonly GroundTruthEntry[];
  setPlan(plan: FaultPlan): void;
  /** Closes every session (and ends the spawned upstream processes) and connection, then the listener. */
  close(): Promise<void>;
}

function httpUrl(url: string | URL): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`upstream.url must be an http(s) URL, got "${String(url)}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new TypeError(`upstream.url must be an http(s) URL, got "${parsed.href}"`);
  }
  return parsed;
}

/**
 * Puts a fault plan in front of any MCP server. Clients connect to the proxy over Streamable HTTP. Upstream,
 * a Streamable HTTP server gets every HTTP exchange unchanged (the proxy is a reverse proxy); a stdio server
 * is spawned once per HTTP session and bridged message for message. Requests the plan picks get their fault
 * instead; the ground-truth log is the chaos server's.
 */
export async function startChaosProxy(options: ChaosProxyOptions): Promise<ChaosProxy> {
  const { upstream, host, port } = options;
  if (typeof upstream !== 'object' || upstream === null) {
    throw new TypeError('upstream must be { url } or { command, args }');
  }
  const core = new FaultCore(options);
  let front: Awaited<ReturnType<typeof serveChaosHttp>>;
  if ('url' in upstream) {
    front = await serveHttpProxy({ core, upstream: httpUrl(upstream.url), host, port });
  } else {
    if (typeof upstream.command !== 'string' || upstream.command.trim() === '') {
      throw new TypeError('upstream.command must be a non-empty string');
    }
    front = await serveChaosHttp({
      core,
      host,
      port,
      createBackend: stdioBackend(upstream),
      crashScope: 'session',
    });
  }
  return {
    url: front.url,
    port: front.port,
    log: core.log.entries,
    setPlan: (plan) => core.setPlan(plan),
    close: () => front.close(),
  };
}
