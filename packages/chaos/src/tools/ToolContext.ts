import type { RequestId } from '@modelcontextprotocol/sdk/types.js';

/** What the tools share with the chaos server. */
export interface ToolContext {
  /** Called first thing in every tool handler: the request really executed. */
  onExecute(requestId: RequestId): void;
  /** Duration of one `generate_report` step, ms. */
  stepMs: number;
  /** Ticket numbers, unique across the server's sessions. */
  nextTicketNumber(): number;
}
