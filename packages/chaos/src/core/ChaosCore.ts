import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { createToolServer } from '../tools/createToolServer.js';
import { FaultCore, type FaultOptions } from './FaultCore.js';

export type { Admission } from './FaultCore.js';

/** Options shared by the HTTP and stdio chaos servers. */
export interface ChaosOptions extends FaultOptions {
  /** Duration of one `generate_report` step, ms. Default 100. */
  stepMs?: number;
}

/** The state one chaos server shares across its connections: the fault core, plus the tools' tickets. */
export class ChaosCore extends FaultCore {
  private readonly stepMs: number;
  private tickets = 0;

  constructor(options: ChaosOptions) {
    super(options);
    this.stepMs = options.stepMs ?? 100;
  }

  /** A fresh MCP server with the chaos tools, for one connection. */
  createToolServer(onExecute: (requestId: RequestId) => void): McpServer {
    return createToolServer({ onExecute, stepMs: this.stepMs, nextTicketNumber: () => ++this.tickets });
  }
}
