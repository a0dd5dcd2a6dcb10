import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

/**
 * A 2025-11-25 upstream on the MCP TypeScript SDK v1 over Streamable HTTP (sessions), whose tool `confirm` asks
 * the client (`elicitInput`) during the call. `calls` counts the tool's runs, `answers` holds what it got back.
 */
export async function startAskingHttpServer(): Promise<{
  url: string;
  calls: () => number;
  answers: unknown[];
  close(): Promise<void>;
}> {
  const answers: unknown[] = [];
  let calls = 0;
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const open = async () => {
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => void sessions.set(id, transport),
    });
    const server = new McpServer({ name: 'asking-http', version: '1.0.0' });
    server.registerTool('confirm', { description: 'confirm' }, async () => {
      calls += 1;
      const answer = await server.server.elicitInput({
        message: 'Proceed?',
        requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
      });
      answers.push(answer);
      return { content: [{ type: 'text', text: `answer: ${JSON.stringify(answer)}` }] };
    });
    await server.connect(transport);
    return transport;
  };
  const http = createServer((req, res) => {
    const id = req.headers['mcp-session-id'];
    const known = typeof id === 'string' ? sessions.get(id) : undefined;
    void (known ? Promise.resolve(known) : open()).then((transport) => transport.handleRequest(req, res));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    calls: () => calls,
    answers,
    async close() {
      await Promise.allSettled([...sessions.values()].map((t) => t.close()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
