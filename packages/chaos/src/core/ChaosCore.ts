import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { McpServer as ModernMcpServer } from '@modelcontextprotocol/server';
import { createModernToolServer } from '../tools/createModernToolServer.js';
import { createToolServer } from '../tools/createToolServer.js';
import { FaultCore, type FaultOptions } from './FaultCore.js';

export type { Admission } from './FaultCore.js';

/** Options shared by the HTTP and stdio chaos servers. */
export interface ChaosOptions extends FaultOptions {
  /** Duration of one `generate_report` step, ms. Default 100. */
  stepMs?: number;
  /**
   * The MCP protocol revision the server speaks: `2025-11-25` (default: `initialize`, sessions over Streamable
   * HTTP, the SDK v1 server) or `2026-07-28` (no `initialize`, no sessions: `server/discover` and a per-request
   * `_meta` envelope, the SDK v2 server; 2025-era requests are refused with -32022 naming the supported revision).
   */
  protocol?: ProtocolRevision;
}

export const PROTOCOL_REVISIONS = ['2025-11-25', '2026-07-28'] as const;
export type ProtocolRevision = (typeof PROTOCOL_REVISIONS)[number];

/** The state one chaos server shares across its connections: the fault core, plus the tools' tickets. */
export class ChaosCore extends FaultCore {
  private readonly stepMs: number;
  private tickets = 0;
  readonly protocol: ProtocolRevision;

  constructor(options: ChaosOptions) {
    super(options);
    this.stepMs = options.stepMs ?? 100;
    this.protocol = options.protocol ?? '2025-11-25';
    if (!(PROTOCOL_REVISIONS as readonly string[]).includes(this.protocol)) {
      throw new TypeError(
        `chaos: option 'protocol' must be one of ${PROTOCOL_REVISIONS.join(', ')}, got ${JSON.stringify(options.protocol)}`,
      );
    }
  }

  /** A fresh MCP server with the chaos tools, for one connection. */
  createToolServer(onExecute: (requestId: RequestId) => void): McpServer {
    return createToolServer(this.toolContext(onExecute));
  }

  /** A fresh SDK v2 MCP server with the chaos tools (2026-07-28), for one request. */
  createModernToolServer(onExecute: (requestId: RequestId) => void): ModernMcpServer {
    return createModernToolServer(this.toolContext(onExecute));
  }

  private toolContext(onExecute: (requestId: RequestId) => void) {
    return { onExecute, stepMs: this.stepMs, nextTicketNumber: () => ++this.tickets };
  }
}
