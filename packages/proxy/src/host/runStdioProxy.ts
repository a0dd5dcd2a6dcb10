import type { Readable, Writable } from 'node:stream';
import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY } from '@modelcontextprotocol/client';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { ClientCapabilities, Implementation, JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { JsonLineBuffer } from '../transport/JsonLineBuffer.js';
import { Upstream, type UpstreamOptions } from '../upstream/Upstream.js';
import { createHostServer } from './createHostServer.js';
import type { ForwardOptions } from './forwardRequest.js';
import { HeldTransport } from './HeldTransport.js';
import { InputRounds, type InputRoundsOptions } from './InputRounds.js';
import { isModernOpening } from './isModernOpening.js';
import { upstreamRefusal } from './upstreamRefusal.js';

/** Options of {@link runStdioProxy}. All optional but `upstream`. */
export interface StdioProxyOptions extends ForwardOptions, InputRoundsOptions {
  readonly upstream: Omit<UpstreamOptions, 'capabilities' | 'clientInfo' | 'hosts'>;
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
 * resilience layer, in the protocol revision the host opens with. `initialize` (2025-11-25 and earlier): the
 * upstream is connected with the host's identity and capabilities (so the upstream sees what the host can do:
 * sampling, elicitation, roots), and {@link createHostServer} serves the session. A request with the 2026-07-28
 * envelope (`server/discover`): the upstream is connected with the host's identity (and, if it speaks
 * 2026-07-28 too, the host's capabilities, for the `input_required` rounds the host answers), and {@link serveModernStdio} serves the host as the gateway serves its hosts of that
 * revision. When the upstream cannot be reached, the host's first request gets a JSON-RPC error that says so, and
 * the proxy ends.
 */
export async function runStdioProxy(options: StdioProxyOptions): Promise<StdioProxy> {
  const stdin = options.stdin ?? process.stdin;
  const host = new HeldTransport(
    JsonLineBuffer.install(new StdioServerTransport(stdin, options.stdout ?? process.stdout)),
  );
  let upstream: Upstream | undefined;
  let served: { close(): Promise<void> } | undefined;
  let resolveClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve;
  });
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await served?.close().catch(() => {});
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
  const modern = isModernOpening(first);
  // A 2026-07-28 host's rounds are attached before the upstream connects: a roots/list it asks at once is held.
  const rounds = modern ? new InputRounds(options) : undefined;
  try {
    upstream = await Upstream.open({
      ...options.upstream,
      ...hostIdentity(first, modern),
      ...(rounds ? { hosts: [rounds.link] } : {}),
    });
  } catch (error) {
    rounds?.close();
    await refuse(host, first, options.upstream, error);
    await close();
    throw error;
  }
  served = rounds
    ? (await import('./serveModernStdio.js')).serveModernStdio(host, upstream, options, rounds)
    : await serveLegacy(host, upstream, options, close);
  return { closed, close };
}

/** A 2025-11-25 session: the SDK v1 `Server` facing the host; the proxy ends when it closes. */
async function serveLegacy(
  host: HeldTransport,
  upstream: Upstream,
  options: StdioProxyOptions,
  close: () => Promise<void>,
): Promise<{ close(): Promise<void> }> {
  // One stdio host: its forwarded requests skip the SDK Server's request layer (bench/wallBreakdown.ts).
  const server = createHostServer(upstream, { ...options, directRequests: true });
  const onclose = server.onclose;
  server.onclose = () => {
    onclose?.();
    void close();
  };
  await server.connect(host);
  // Closing the host's transport closes the server.
  return { close: () => Promise.resolve() };
}

/**
 * What the upstream is told of the host: its `initialize`'s `clientInfo` and capabilities, or on 2026-07-28 the
 * envelope's `clientInfo` and capabilities, announced to a 2026-07-28 upstream only (whose `input_required`
 * rounds the host answers; a 2025-era upstream's server-to-client requests cannot reach such a host).
 */
function hostIdentity(
  first: JSONRPCMessage,
  modern: boolean,
): {
  capabilities?: ClientCapabilities;
  clientInfo?: Implementation;
  modernCapabilities?: ClientCapabilities;
} {
  if (modern) {
    const envelope = envelopeParams(first);
    // A 2025-era upstream is told them too: its server-to-client requests cross as input_required rounds.
    return envelope.modernCapabilities === undefined
      ? envelope
      : { ...envelope, capabilities: envelope.modernCapabilities };
  }
  const init = initializeParams(first);
  return {
    ...(init?.capabilities ? { capabilities: init.capabilities } : {}),
    ...(init?.clientInfo ? { clientInfo: init.clientInfo } : {}),
  };
}

function envelopeParams(message: JSONRPCMessage): {
  clientInfo?: Implementation;
  modernCapabilities?: ClientCapabilities;
} {
  const meta = (message as { params?: { _meta?: Record<string, unknown> } }).params?._meta;
  const clientInfo = meta?.[CLIENT_INFO_META_KEY] as Implementation | undefined;
  const capabilities = meta?.[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined;
  return {
    ...(clientInfo && typeof clientInfo.name === 'string' ? { clientInfo } : {}),
    ...(capabilities && typeof capabilities === 'object' ? { modernCapabilities: capabilities } : {}),
  };
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
  await host
    .send({
      jsonrpc: '2.0',
      id,
      error: { code: -32603, message: upstreamRefusal(upstream.spec, error) },
    })
    .catch(() => {});
}
