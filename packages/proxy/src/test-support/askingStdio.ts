import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const sdk = (path: string) => pathToFileURL(require.resolve(`@modelcontextprotocol/sdk/${path}`)).href;

/** What the upstream saw of one tool call: started, answered (with the host's answer), refused, cancelled. */
export interface AskEvent {
  readonly tool: string;
  readonly event: 'called' | 'answered' | 'refused' | 'cancelled';
  readonly detail?: unknown;
}

/**
 * A 2025-11-25 upstream on the MCP TypeScript SDK v1 (`McpServer`, stdio) whose tools ask the client during the
 * call: `confirm` (`elicitInput`), `ask_model` (`createMessage`), and `confirm_or_wait`, which after a refusal
 * waits for the call's cancellation. Each event is appended to a log (`events()`), the upstream's own account.
 */
export function askingStdio(): { command: string; args: string[]; events: () => AskEvent[] } {
  const dir = mkdtempSync(join(tmpdir(), 'proxy-asking-'));
  const log = join(dir, 'events.jsonl');
  const script = join(dir, 'server.mjs');
  writeFileSync(script, SERVER(log));
  const events = () =>
    existsSync(log)
      ? readFileSync(log, 'utf8')
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => JSON.parse(line) as AskEvent)
      : [];
  return { command: process.execPath, args: [script], events };
}

const SERVER = (log: string) => `
import { appendFileSync } from 'node:fs';
import { McpServer } from ${JSON.stringify(sdk('server/mcp.js'))};
import { StdioServerTransport } from ${JSON.stringify(sdk('server/stdio.js'))};
const note = (tool, event, detail) => appendFileSync(${JSON.stringify(log)}, JSON.stringify({ tool, event, detail }) + '\\n');
const server = new McpServer({ name: 'asking', version: '1.0.0' });
const SCHEMA = { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] };
function tool(name, ask, waitOnRefusal) {
  server.registerTool(name, { description: name }, async (extra) => {
    note(name, 'called');
    try {
      const answer = await ask();
      note(name, 'answered', answer);
      return { content: [{ type: 'text', text: 'answer: ' + JSON.stringify(answer) }] };
    } catch (error) {
      note(name, 'refused', error.message);
      if (waitOnRefusal) {
        await new Promise((resolve) => extra.signal.aborted ? resolve() : extra.signal.addEventListener('abort', resolve));
        note(name, 'cancelled');
      }
      return { content: [{ type: 'text', text: 'refused: ' + error.message }], isError: true };
    }
  });
}
const confirm = () => server.server.elicitInput({ message: 'Proceed?', requestedSchema: SCHEMA });
tool('confirm', confirm, false);
tool('confirm_or_wait', confirm, true);
tool('ask_model', () => server.server.createMessage({
  messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }],
  maxTokens: 10,
}), false);
await server.connect(new StdioServerTransport());
`;
