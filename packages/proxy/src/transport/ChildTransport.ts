import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The JSON-RPC code of a refused protocol revision: a 2026-07-28-only server answers `initialize` with it. */
export const UNSUPPORTED_PROTOCOL_VERSION = -32022;

/** Options of {@link ChildTransport}. All optional. */
export interface ChildTransportOptions {
  /** The child runs already (handed over): `start()` starts nothing. Default `false`. */
  readonly started?: boolean;
  /**
   * Called on `close()` instead of stopping the child, when the child answered this transport's `initialize`
   * with {@link UNSUPPORTED_PROTOCOL_VERSION}: the child is detached from this transport, still running, for a
   * client of the revision it speaks. Without it, `close()` stops the child as the SDK's transport does.
   */
  readonly onRefusedOpening?: (child: StdioClientTransport) => void;
}

type Message = JSONRPCMessage & { id?: string | number; method?: string; error?: { code?: unknown } };

/**
 * A transport over the SDK's stdio child transport (`StdioClientTransport`, which spawns the child on `start()`)
 * that can outlive a refused opening: the same child, not a second one, then serves the next client (see
 * {@link ChildTransportOptions.onRefusedOpening}). Exposes the child's `pid` and `stderr`, as the SDK's transport
 * does (the SDK v2 client recognizes a stdio transport by them).
 */
export class ChildTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onerror?: Transport['onerror'];
  onclose?: Transport['onclose'];
  private started: boolean;
  private detached = false;
  private opening: string | number | undefined;
  private refused = false;

  constructor(
    private readonly child: StdioClientTransport,
    private readonly options: ChildTransportOptions = {},
  ) {
    this.started = options.started ?? false;
    child.onmessage = (message) => this.received(message as Message);
    child.onerror = (error) => this.onerror?.(error);
    child.onclose = () => this.onclose?.();
  }

  get pid(): number | null {
    return this.child.pid;
  }

  get stderr(): StdioClientTransport['stderr'] {
    return this.child.stderr;
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.child.start();
  }

  send(message: JSONRPCMessage): Promise<void> {
    const { method, id } = message as Message;
    if (method === 'initialize' && id !== undefined) this.opening = id;
    return this.child.send(message);
  }

  async close(): Promise<void> {
    if (this.detached) return;
    const hand = this.refused ? this.options.onRefusedOpening : undefined;
    if (hand === undefined) return this.child.close();
    this.detached = true;
    this.child.onmessage = undefined;
    this.child.onerror = undefined;
    this.child.onclose = undefined;
    hand(this.child);
    // The client learns of the end of its connection as from the SDK's transport.
    this.onclose?.();
  }

  private received(message: Message): void {
    if (this.opening !== undefined && message.id === this.opening && message.method === undefined) {
      this.refused = message.error?.code === UNSUPPORTED_PROTOCOL_VERSION;
    }
    this.onmessage?.(message);
  }
}
