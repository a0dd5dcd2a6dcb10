import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serveFetch } from '@mcp-resilience/middleware/testing';
import { acceptedContent, createMcpHandler, inputRequired, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

export interface ModernServer {
  readonly url: string;
  /** Each execution of `confirm`: whether it had the host's answer. */
  readonly confirmations: { answered: boolean }[];
  close(): Promise<void>;
}

/**
 * A real MCP server of the TypeScript SDK v2 (`@modelcontextprotocol/server`) that speaks only 2026-07-28
 * (`legacy: 'reject'`), on Streamable HTTP at 127.0.0.1: `confirm` asks for a confirmation with an
 * `input_required` result (an embedded `elicitation/create`) and completes once it has it; `where` asks the
 * client's roots the same way (`roots/list`) and answers with their URIs; `grow` publishes
 * `tools/list_changed` to the open `subscriptions/listen` streams.
 */
export async function startModernServer(): Promise<ModernServer> {
  const confirmations: { answered: boolean }[] = [];
  const answer = z.object({ confirm: z.boolean() });
  const handler = createMcpHandler(
    () => {
      const server = new McpServer({ name: 'modern-test', version: '2.4.0' });
      server.registerTool(
        'confirm',
        { inputSchema: z.object({ action: z.string() }), annotations: { readOnlyHint: true } },
        async ({ action }, ctx) => {
          const given = acceptedContent(ctx.mcpReq.inputResponses, 'confirm', answer);
          confirmations.push({ answered: given !== undefined });
          if (given?.confirm !== true) {
            return inputRequired({
              inputRequests: {
                confirm: inputRequired.elicit({ message: `${action}?`, requestedSchema: answer }),
              },
            });
          }
          return { content: [{ type: 'text', text: `${action}: done` }] };
        },
      );
      server.registerTool(
        'where',
        { inputSchema: z.object({}), annotations: { readOnlyHint: true } },
        async (_, ctx) => {
          const listed = ctx.mcpReq.inputResponses?.roots as { roots?: { uri: string }[] } | undefined;
          if (listed?.roots === undefined) {
            return inputRequired({ inputRequests: { roots: inputRequired.listRoots() } });
          }
          return { content: [{ type: 'text', text: `roots: ${listed.roots.map((r) => r.uri).join(' ')}` }] };
        },
      );
      server.registerTool('grow', { inputSchema: z.object({}) }, async () => {
        handler.notify.toolsChanged();
        return { content: [{ type: 'text', text: 'the tool list changed' }] };
      });
      return server;
    },
    { legacy: 'reject' },
  );
  const http = createServer((req, res) => {
    serveFetch(handler.fetch, req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    confirmations,
    async close() {
      await handler.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
