import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ToolContext } from './ToolContext.js';
import { toolResult } from './toolResult.js';

/** `create_ticket {title, body?}`: destructive and not idempotent; every execution creates a new ticket. */
export function registerCreateTicket(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'create_ticket',
    {
      title: 'Create ticket',
      description: 'Opens a new support ticket. Calling it twice opens two tickets.',
      inputSchema: {
        title: z.string().min(1).describe('One-line summary'),
        body: z.string().optional().describe('Details'),
      },
      annotations: {
        readOnlyHint: false,
        destructiveHint: true,
        idempotentHint: false,
        openWorldHint: false,
      },
    },
    ({ title }, extra) => {
      context.onExecute(extra.requestId);
      return toolResult({ id: `TCK-${context.nextTicketNumber()}`, title, status: 'open' });
    },
  );
}
