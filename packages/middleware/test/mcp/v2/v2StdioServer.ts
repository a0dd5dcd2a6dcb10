/** A v2 SDK MCP server on stdio (`serveStdio`: 2025-11-25 after `initialize`, 2026-07-28 after `server/discover`). */
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { createV2ToolServer, newV2Log } from './v2ToolServer.js';

const log = newV2Log();
serveStdio(() => createV2ToolServer(log));
