import { mkdtempSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach, expect, it } from 'vitest';

/*
 * The README's Claude Desktop entry, run as a host runs it: its `command` and `args` as written (`npx -y
 * @mcp-resilience/proxy wrap ... -- npx -y @modelcontextprotocol/server-filesystem <dir>`, both resolved in this
 * repository), only the directory swapped for a temporary one and no telemetry endpoint (nothing listens here).
 */

const packageDir = join(import.meta.dirname, '..');
const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');

/** The first `mcpServers` entry of the ```json block after "**Claude Desktop**". */
function claudeDesktopEntry(): { command: string; args: string[]; env?: Record<string, string> } {
  const section = readme.slice(readme.indexOf('**Claude Desktop**'));
  const json = /```json\n([\s\S]*?)```/.exec(section)?.[1];
  if (json === undefined) throw new Error('no json block after **Claude Desktop**');
  const servers = (JSON.parse(json) as { mcpServers: Record<string, never> }).mcpServers;
  return Object.values(servers)[0] as never;
}

const clients: Client[] = [];
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
});

it("runs the README's Claude Desktop entry: the filesystem server behind wrap", async () => {
  const entry = claudeDesktopEntry();
  expect(entry.command).toBe('npx');
  expect(entry.args.slice(0, 3)).toEqual(['-y', '@mcp-resilience/proxy', 'wrap']);
  const documented = entry.args.at(-1) as string;
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'readme-notes-')));
  writeFileSync(join(dir, 'todo.md'), '- circuit breakers\n');
  const args = [...entry.args.slice(0, -1), dir];
  expect(documented).not.toBe(dir);
  const { OTEL_EXPORTER_OTLP_ENDPOINT: _, ...env } = process.env as Record<string, string>;
  const client = new Client({ name: 'readme-host', version: '1.0.0' });
  clients.push(client);
  await client.connect(
    new StdioClientTransport({ command: entry.command, args, cwd: packageDir, env, stderr: 'ignore' }),
  );
  expect(client.getServerVersion()?.name).toMatch(/filesystem/i);
  const tools = (await client.listTools()).tools.map((t) => t.name);
  expect(tools).toContain('read_text_file');
  const read = await client.callTool({ name: 'read_text_file', arguments: { path: join(dir, 'todo.md') } });
  expect(JSON.stringify(read.content)).toContain('circuit breakers');
  // a path outside the allowed directory: the server's own refusal, through the layer, as an isError result
  const outside = await client.callTool({ name: 'read_text_file', arguments: { path: '/etc/hostname' } });
  expect(outside.isError).toBe(true);
});
