import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { registerCreateTicket } from './registerCreateTicket.js';
import { registerGenerateReport } from './registerGenerateReport.js';
import { registerGetWeather } from './registerGetWeather.js';
import { registerSearch } from './registerSearch.js';
import type { ToolContext } from './ToolContext.js';

/** An MCP server with the four chaos tools: `get_weather`, `search`, `create_ticket`, `generate_report`. */
export function createToolServer(context: ToolContext): McpServer {
  const server = new McpServer({ name: 'mcp-chaos', version: '0.1.0' });
  registerChaosTools(server, context);
  return server;
}

/** Registers the four chaos tools on a server with the SDK v1 `registerTool` shape. */
export function registerChaosTools(server: McpServer, context: ToolContext): void {
  registerGetWeather(server, context);
  registerSearch(server, context);
  registerCreateTicket(server, context);
  registerGenerateReport(server, context);
}
