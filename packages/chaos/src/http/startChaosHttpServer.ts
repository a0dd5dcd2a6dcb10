import { ChaosCore, type ChaosOptions } from '../core/ChaosCore.js';
import type { GroundTruthEntry } from '../log/GroundTruthLog.js';
import type { FaultPlan } from '../plan/FaultPlan.js';
import { serveChaosHttp } from './serveChaosHttp.js';

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
  /** The ground-truth log, one entry per JSON-RPC request, live. */
  readonly log: readonly GroundTruthEntry[];
  setPlan(plan: FaultPlan): void;
  /** Closes every session and connection, then the listener. */
  close(): Promise<void>;
}

/** Starts a fault-injecting MCP server on Streamable HTTP (stateful sessions). */
export async function startChaosHttpServer(options: ChaosHttpOptions = {}): Promise<ChaosHttpServer> {
  const core = new ChaosCore(options);
  const front = await serveChaosHttp({
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
    log: core.log.entries,
    setPlan: (plan) => core.setPlan(plan),
    close: () => front.close(),
  };
}
