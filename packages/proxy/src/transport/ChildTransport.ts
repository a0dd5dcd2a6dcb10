import type { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { HeldMessages } from '../upstream/HeldMessages.js';

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
  /**
   * Where the child's messages go while no client reads them: after the refusal of this transport's
   * `initialize` (with `onRefusedOpening`, the handed-over child keeps writing here), and on a handed-over child
   * (`started`) until `start()`, which delivers them first, in order. Without it they are delivered at once.
   */
  readonly held?: HeldMessages;
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
  /** A handed-over child whose new client has not begun its connection yet (see {@link release}). */
  private waiting: boolean;
  private sent = false;

  constructor(
    private readonly child: StdioClientTransport,
    private readonly options: ChildTransportOptions = {},
  ) {
    this.started = options.started ?? false;
    this.waiting = this.started;
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
    if (this.started) {
      if (this.sent) this.release();
      return;
    }
    this.started = true;
    await this.child.start();
  }

  /**
   * Delivers what the handed-over child wrote while nobody read it, in order, to the client's connection; later
   * messages go straight on. The SDK v2 client first probes with `server/discover` on a reader of its own that
   * drops everything but the probe's answer, then starts its connection again: the held messages wait for that
   * second `start()` (or, for a client without a probe, for its first request).
   */
  private release(): void {
    if (!this.waiting) return;
    this.waiting = false;
    for (const message of this.options.held?.take() ?? []) this.onmessage?.(message);
  }

  send(message: JSONRPCMessage): Promise<void> {
    const { method, id } = message as Message;
    this.sent = true;
    if (method !== 'server/discover') this.release();
    if (method === 'initialize' && id !== undefined) this.opening = id;
    return this.child.send(message);
  }

  async close(): Promise<void> {
    if (this.detached) return;
    const hand = this.refused ? this.options.onRefusedOpening : undefined;
    if (hand === undefined) return this.child.close();
    this.detached = true;
    // Its messages (held since the refusal) wait for the next client: `onmessage` stays.
    this.child.onerror = undefined;
    this.child.onclose = undefined;
    hand(this.child);
    // The client learns of the end of its connection as from the SDK's transport.
    this.onclose?.();
  }

  private received(message: Message): void {
    const held = this.options.held;
    if (held !== undefined && this.holds(message)) {
      held.hold(message);
      return;
    }
    if (this.opening !== undefined && message.id === this.opening && message.method === undefined) {
      this.refused = message.error?.code === UNSUPPORTED_PROTOCOL_VERSION;
    }
    this.onmessage?.(message);
  }

  /**
   * Whether `message` waits for the next client: everything after a refusal that hands the child over, and on a
   * handed-over child not released yet, all but responses (they answer what this client asked: the probe's).
   */
  private holds(message: Message): boolean {
    if (this.refused && this.options.onRefusedOpening !== undefined) return true;
    return this.waiting && message.method !== undefined;
  }
}
