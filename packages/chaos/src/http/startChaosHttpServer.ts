import { ChaosCore, type ChaosOptions, type ProtocolRevision } from '../core/ChaosCore.js';
import type { GroundTruthEntry } from '../log/GroundTruthLog.js';
import type { FaultPlan } from '../plan/FaultPlan.js';
import { serveChaosHttp } from './serveChaosHttp.js';
import { serveModernHttp } from './serveModernHttp.js';

export interface ChaosHttpOptions extends ChaosOptions {
  /** Default 0: an ephemeral port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
}

export interface ChaosHttpServer {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  readonly port: number;
  /** The protocol revision it speaks. */
  readonly protocol: ProtocolRevision;
  /** The ground-truth log, one entry per JSON-RPC request (and per cancellation received), live. */
  readonly log: readonly GroundTruthEntry[];
  setPlan(plan: FaultPlan): void;
  /** Closes every session and connection, then the listener. */
  close(): Promise<void>;
}

/**
 * Starts a fault-injecting MCP server on Streamable HTTP: stateful sessions on protocol 2025-11-25 (default), or
 * sessionless on 2026-07-28 (`protocol`).
 */
export async function startChaosHttpServer(options: ChaosHttpOptions = {}): Promise<ChaosHttpServer> {
  const core = new ChaosCore(options);
  const front =
    core.protocol === '2026-07-28'
      ? await serveModernHttp({ core, host: options.host, port: options.port })
      : await serveChaosHttp({
          core,
          host: options.host,
          port: options.port,
          createBackend: (connection) => {
            const server = core.createToolServer((requestId) => connection.markExecuted(requestId));
            return { start: () => server.connect(connection), close: () => server.close() };
          },
        });
  return {
    url: front.url,
    port: front.port,
    protocol: core.protocol,
    log: core.log.entries,
    setPlan: (plan) => core.setPlan(plan),
    close: () => front.close(),
  };
}
