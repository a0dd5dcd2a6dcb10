import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { ClientCapabilities, Implementation, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { JsonLineBuffer } from '../transport/JsonLineBuffer.js';
import { Upstream, type UpstreamOptions } from '../upstream/Upstream.js';
import { createHostServer } from './createHostServer.js';
import type { ForwardOptions } from './forwardRequest.js';
import { HeldTransport } from './HeldTransport.js';

/** Options of {@link runStdioProxy}. All optional but `upstream`. */
export interface StdioProxyOptions extends ForwardOptions {
  readonly upstream: Omit<UpstreamOptions, 'capabilities' | 'clientInfo'>;
  /** The host's side. Default: the process's stdin and stdout. */
  readonly stdin?: Readable;
  readonly stdout?: Writable;
}

/** A running stdio proxy. */
export interface StdioProxy {
  /** Resolves when the host went away (stdin ended or closed) and the upstream was closed. */
  readonly closed: Promise<void>;
  close(): Promise<void>;
}

/**
 * `wrap` and `connect`: MCP over stdio to the host, the upstream (a stdio child or a Streamable HTTP URL) behind the
 * resilience layer. The upstream is connected when the host's `initialize` arrives, with the host's identity
 * and capabilities (so the upstream sees what the host can do: sampling, elicitation, roots). When it cannot be
 * reached, the host's `initialize` gets a JSON-RPC error that says so, and the proxy ends.
 */
export async function runStdioProxy(options: StdioProxyOptions): Promise<StdioProxy> {
  const stdin = options.stdin ?? process.stdin;
  const host = new HeldTransport(
    JsonLineBuffer.install(new StdioServerTransport(stdin, options.stdout ?? process.stdout)),
  );
  let upstream: Upstream | undefined;
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await host.close().catch(() => {});
      await upstream?.close().catch(() => {});
      resolveClosed();
    })();
    return closing;
  };
  stdin.once('end', () => void close());
  stdin.once('close', () => void close());
  await host.open();
  const first = await host.first();
  if (first === undefined) {
    await close();
    return { closed, close };
  }
  const init = initializeParams(first);
  try {
    upstream = await Upstream.open({
      ...options.upstream,
      ...(init?.capabilities ? { capabilities: init.capabilities } : {}),
      ...(init?.clientInfo ? { clientInfo: init.clientInfo } : {}),
    });
  } catch (error) {
    await refuse(host, first, options.upstream, error);
    await close();
    throw error;
  }
  const server = createHostServer(upstream, options);
  const onclose = server.onclose;
  server.onclose = () => {
    onclose?.();
    void close();
  };
  await server.connect(host);
  return { closed, close };
}

function initializeParams(
  message: JSONRPCMessage,
): { capabilities?: ClientCapabilities; clientInfo?: Implementation } | undefined {
  const { method, params } = message as { method?: unknown; params?: Record<string, unknown> };
  if (method !== 'initialize' || params === undefined) return undefined;
  return params as { capabilities?: ClientCapabilities; clientInfo?: Implementation };
}

/** Answers the host's first request with the reason the upstream could not be reached. */
async function refuse(
  host: HeldTransport,
  first: JSONRPCMessage,
  upstream: StdioProxyOptions['upstream'],
  error: unknown,
): Promise<void> {
  const id = (first as { id?: string | number }).id;
  if (id === undefined) return;
  const what =
    upstream.spec.kind === 'stdio' ? 'start the upstream server' : 'connect to the upstream server';
  const reason = error instanceof Error ? error.message : String(error);
  await host
    .send({
      jsonrpc: '2.0',
      id,
      error: { code: -32603, message: `mcp-resilience: could not ${what}: ${reason}` },
    })
    .catch(() => {});
}
