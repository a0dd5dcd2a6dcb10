import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { ChaosConnection } from '../core/ChaosConnection.js';
import { ChaosCore, type ChaosOptions } from '../core/ChaosCore.js';
import type { GroundTruthEntry } from '../log/GroundTruthLog.js';
import type { FaultPlan } from '../plan/FaultPlan.js';

export interface ChaosServerOptions extends ChaosOptions {
  /** What a `crash` fault does once the log is flushed. Default: `process.exit(exitCode)`. */
  onCrash?: (exitCode: number) => void;
}

/** A chaos server for stdio (or any other message transport); HTTP-only faults never match here. */
export interface ChaosServer {
  /** The ground-truth log, one entry per request, live. */
  readonly log: readonly GroundTruthEntry[];
  /** Serves one client over `transport`, e.g. `new StdioServerTransport()`. */
  connect(transport: Transport): Promise<void>;
  setPlan(plan: FaultPlan): void;
  close(): Promise<void>;
}

export function createChaosServer(options: ChaosServerOptions = {}): ChaosServer {
  const core = new ChaosCore(options);
  const servers: Pick<McpServer, 'close'>[] = [];
  return {
    log: core.log.entries,
    async connect(transport) {
      const connection = new ChaosConnection(transport, {
        log: core.log,
        admit: (request) => core.admit([request], { transport: 'stdio' })[0]!,
        onCrash: options.onCrash ?? ((exitCode) => process.exit(exitCode)),
        onCancelled: (requestId, reason) =>
          core.cancelled(requestId, { transport: 'stdio' }, 'notification', reason),
      });
      if (core.protocol === '2026-07-28') {
        // The SDK v2 entry decides the era from the opening exchange; 2025-era openings are refused (-32022).
        const handle = serveStdio(
          () => core.createModernToolServer((requestId) => connection.markExecuted(requestId)),
          {
            legacy: 'reject',
            transport: connection as unknown as NonNullable<
              NonNullable<Parameters<typeof serveStdio>[1]>['transport']
            >,
          },
        );
        servers.push(handle);
        return;
      }
      const server = core.createToolServer((requestId) => connection.markExecuted(requestId));
      servers.push(server);
      await server.connect(connection);
    },
    setPlan: (plan) => core.setPlan(plan),
    async close() {
      await Promise.all(servers.map((server) => server.close()));
      core.log.flush();
    },
  };
}
