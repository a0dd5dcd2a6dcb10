import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/**
 * A started transport whose incoming messages are held until a `Protocol` connects to it: the proxy reads the
 * host's `initialize` first (to connect the upstream with the host's capabilities and identity), then builds
 * the host-facing `Server`, which then receives that `initialize` and everything after it, in order.
 */
export class HeldTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onerror?: Transport['onerror'];
  onclose?: Transport['onclose'];
  private readonly held: JSONRPCMessage[] = [];
  private waiter: ((message: JSONRPCMessage | undefined) => void) | undefined;
  private connected = false;
  private closed = false;

  constructor(private readonly inner: Transport) {
    inner.onmessage = (message) => {
      if (this.connected) this.onmessage?.(message);
      else {
        this.held.push(message);
        this.wake(message);
      }
    };
    inner.onerror = (error) => this.onerror?.(error);
    inner.onclose = () => {
      if (this.closed) return;
      this.closed = true;
      this.wake(undefined);
      this.onclose?.();
    };
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  /** Starts the inner transport. */
  open(): Promise<void> {
    return this.inner.start();
  }

  /** The first message from the host, or `undefined` when the transport closed before one came. */
  first(): Promise<JSONRPCMessage | undefined> {
    if (this.held[0] !== undefined) return Promise.resolve(this.held[0]);
    if (this.closed) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      this.waiter = resolve;
    });
  }

  /** Called by `Protocol.connect`: delivers the held messages, then every new one. */
  async start(): Promise<void> {
    this.connected = true;
    for (const message of this.held.splice(0)) this.onmessage?.(message);
  }

  send(message: JSONRPCMessage, options?: Parameters<Transport['send']>[1]): Promise<void> {
    return this.inner.send(message, options);
  }

  close(): Promise<void> {
    return this.closed ? Promise.resolve() : this.inner.close();
  }

  private wake(message: JSONRPCMessage | undefined): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.(message);
  }
}
