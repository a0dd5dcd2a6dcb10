import type { ObservedFetch } from '@mcp-resilience/middleware/mcp';
import { StreamableHTTPClientTransport as ModernHttpTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { JsonLineBuffer } from '../transport/JsonLineBuffer.js';
import type { StdioHandover } from './StdioHandover.js';
import type { UpstreamSpec } from './UpstreamSpec.js';
import type { UpstreamEra } from './upstreamClient.js';

/**
 * A function making a fresh transport to the upstream for each connection (a transport starts once): the first
 * connection, and each reconnection after a crash or a lost session. A stdio child inherits the proxy's
 * environment plus `env`, and its stderr goes to the proxy's stderr; its stdout carries only the protocol. On
 * HTTP, the `modern` era (2026-07-28) needs the SDK v2 transport (its per-request headers and streams); stdio is
 * the same pipe on both eras. With a `handover` (stdio, one {@link Upstream.open}), the `legacy` opening's child
 * is kept when it refuses `initialize` with -32022, and the `modern` era's first connection takes it instead of
 * starting a second one.
 */
export function transportFactory(
  spec: UpstreamSpec,
  fetch: ObservedFetch | undefined,
  era: UpstreamEra = 'legacy',
  handover?: StdioHandover,
): () => object {
  if (spec.kind === 'stdio') {
    const child = () =>
      JsonLineBuffer.install(
        new StdioClientTransport({
          command: spec.command,
          args: [...spec.args],
          env: { ...inheritedEnv(), ...spec.env },
          ...(spec.cwd === undefined ? {} : { cwd: spec.cwd }),
          stderr: 'inherit',
        }),
      );
    if (handover === undefined) return child;
    return era === 'legacy' ? () => handover.watch(child()) : () => handover.take() ?? child();
  }
  const url = new URL(spec.url);
  const Transport = era === 'modern' ? ModernHttpTransport : StreamableHTTPClientTransport;
  return () =>
    new Transport(url, {
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
