import { acceptedContent, inputRequired, McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

/** What a v2 test server saw: executions by tool, and the requests it was told to cancel. */
export interface V2ServerLog {
  readonly executions: { tool: string; requestId: string | number }[];
  readonly cancelled: { tool: string; requestId: string | number; reason: string }[];
}

export const newV2Log = (): V2ServerLog => ({ executions: [], cancelled: [] });

/**
 * A real MCP server of the TypeScript SDK v2 (`@modelcontextprotocol/server` 2.4.0), for the tests: `echo`
 * (read-only), `slow` (read-only; waits `ms` unless cancelled, and records the cancellation), `create_item`
 * (destructive, unannotated), `confirm` (2026-07-28 multi-round-trip: asks for a confirmation with an
 * `input_required` result first), `log` (the server's log, for stdio where the test cannot read memory).
 */
export function createV2ToolServer(log: V2ServerLog): McpServer {
  const server = new McpServer({ name: 'v2-test', version: '2.4.0' });
  server.registerTool(
    'echo',
    {
      inputSchema: z.object({ text: z.string() }),
      annotations: { readOnlyHint: true },
    },
    async ({ text }, ctx) => {
      log.executions.push({ tool: 'echo', requestId: ctx.mcpReq.id });
      return { content: [{ type: 'text', text }] };
    },
  );
  server.registerTool(
    'slow',
    {
      inputSchema: z.object({ ms: z.number() }),
      annotations: { readOnlyHint: true },
    },
    async ({ ms }, ctx) => {
      const { id, signal } = ctx.mcpReq;
      log.executions.push({ tool: 'slow', requestId: id });
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        signal.addEventListener(
          'abort',
          () => {
            clearTimeout(timer);
            log.cancelled.push({ tool: 'slow', requestId: id, reason: String(signal.reason) });
            resolve();
          },
          { once: true },
        );
      });
      return { content: [{ type: 'text', text: `waited ${ms} ms` }] };
    },
  );
  server.registerTool(
    'create_item',
    { inputSchema: z.object({ name: z.string() }) },
    async ({ name }, ctx) => {
      log.executions.push({ tool: 'create_item', requestId: ctx.mcpReq.id });
      return { content: [{ type: 'text', text: `created ${name}` }], isError: name === 'bad' };
    },
  );
  const confirmation = z.object({ confirm: z.boolean() });
  server.registerTool(
    'confirm',
    { inputSchema: z.object({ action: z.string() }), annotations: { readOnlyHint: true } },
    async ({ action }, ctx) => {
      log.executions.push({ tool: 'confirm', requestId: ctx.mcpReq.id });
      const answer = acceptedContent(ctx.mcpReq.inputResponses, 'confirm', confirmation);
      if (answer?.confirm !== true) {
        return inputRequired({
          inputRequests: {
            confirm: inputRequired.elicit({ message: `${action}?`, requestedSchema: confirmation }),
          },
        });
      }
      return { content: [{ type: 'text', text: `${action}: done` }] };
    },
  );
  server.registerTool(
    'log',
    { inputSchema: z.object({}), annotations: { readOnlyHint: true } },
    async () => ({
      content: [{ type: 'text', text: JSON.stringify(log) }],
    }),
  );
  return server;
}
