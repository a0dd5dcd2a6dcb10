import type { ObservedFetch } from '@mcp-resilience/middleware/mcp';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { JsonLineBuffer } from '../transport/JsonLineBuffer.js';
import type { UpstreamSpec } from './UpstreamSpec.js';

/**
 * A function making a fresh transport to the upstream for each connection (a transport starts once): the first
 * connection, and each reconnection after a crash or a lost session. A stdio child inherits the proxy's
 * environment plus `env`, and its stderr goes to the proxy's stderr; its stdout carries only the protocol.
 */
export function transportFactory(spec: UpstreamSpec, fetch: ObservedFetch | undefined): () => object {
  if (spec.kind === 'stdio') {
    return () =>
      JsonLineBuffer.install(
        new StdioClientTransport({
          command: spec.command,
          args: [...spec.args],
          env: { ...inheritedEnv(), ...spec.env },
          ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
          stderr: 'inherit',
        }),
      );
  }
  const url = new URL(spec.url);
  return () =>
    new StreamableHTTPClientTransport(url, {
      ...(fetch ? { fetch } : {}),
      requestInit: { headers: { ...spec.headers } },
    });
}

/** The proxy's environment without undefined values (what `spawn` takes). */
function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  return env;
}
