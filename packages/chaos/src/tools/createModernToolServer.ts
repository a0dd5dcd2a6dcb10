import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { McpServer as ModernMcpServer } from '@modelcontextprotocol/server';
import { registerChaosTools } from './createToolServer.js';
import type { ToolContext } from './ToolContext.js';

type Handler = (args: unknown, extra: unknown) => unknown;
interface ModernContext {
  mcpReq: {
    id: string | number;
    _meta?: Record<string, unknown>;
    signal: AbortSignal;
    notify(notification: unknown): Promise<void>;
  };
}

/**
 * The chaos tools on an MCP server of the TypeScript SDK v2 (`@modelcontextprotocol/server`), which speaks the
 * 2026-07-28 revision. The tools are written against v1's `registerTool(name, config, (args, extra))`; this
 * adapter hands them v2's request context in that shape (`requestId`, `_meta`, `signal`, `sendNotification`).
 */
export function createModernToolServer(context: ToolContext): ModernMcpServer {
  const server = new ModernMcpServer({ name: 'mcp-chaos', version: '0.1.0' });
  const register = server.registerTool.bind(server) as unknown as (
    name: string,
    config: unknown,
    handler: (args: unknown, ctx: ModernContext) => unknown,
  ) => unknown;
  const v1Shaped = {
    registerTool: (name: string, config: unknown, handler: Handler) =>
      register(name, config, (args, ctx) =>
        handler(args, {
          requestId: ctx.mcpReq.id,
          _meta: ctx.mcpReq._meta,
          signal: ctx.mcpReq.signal,
          sendNotification: (notification: unknown) => ctx.mcpReq.notify(notification),
        }),
      ),
  };
  registerChaosTools(v1Shaped as unknown as McpServer, context);
  return server;
}
