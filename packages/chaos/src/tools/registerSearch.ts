import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { ToolContext } from './ToolContext.js';
import { toolResult } from './toolResult.js';

/** `search {query, limit?}`: idempotent (not read-only: it keeps a search history), deterministic results. */
export function registerSearch(server: McpServer, context: ToolContext): void {
  server.registerTool(
    'search',
    {
      title: 'Search',
      description: 'Searches the knowledge base. The same query always gives the same results.',
      inputSchema: {
        query: z.string().min(1).describe('What to search for'),
        limit: z.number().int().min(1).max(20).optional().describe('Maximum number of results (default 5)'),
      },
      annotations: {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: true,
        openWorldHint: false,
      },
    },
    ({ query, limit = 5 }, extra) => {
      context.onExecute(extra.requestId);
      const results = Array.from({ length: limit }, (_, i) => ({
        title: `${query}: result ${i + 1}`,
        url: `https://kb.example.com/${encodeURIComponent(query)}/${i + 1}`,
      }));
      return toolResult({ query, results });
    },
  );
}
