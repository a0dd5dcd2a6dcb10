import type { Recovery } from '../call/CallOptions.js';
import type { McpClientLike, TransportLike } from './McpClientLike.js';
import { ReconnectError } from './ReconnectError.js';

/**
 * Re-initializes a client's connection: close, then connect a fresh transport from the factory on the same
 * client. Concurrent recoveries share one reconnection, and a call whose attempt ran on a transport that another
 * call already replaced just retries on the new one. A client its caller closed is not reconnected behind its back.
 */
export class Reconnector {
  private inFlight: Promise<void> | undefined;
  private closedByCaller = false;

  constructor(
    private readonly client: McpClientLike,
    private readonly factory: () => object | Promise<object>,
    /** Called with each new transport before it is connected. */
    private readonly beforeConnect: (transport: TransportLike) => void,
  ) {}

  /** The caller closed the client (`true`) or connected it again (`false`). */
  callerClosed(closed: boolean): void {
    this.closedByCaller = closed;
  }

  /** Reconnects unless another call already replaced `failedOn`; `undefined`: connect only if not connected. */
  reconnect(failedOn: TransportLike | undefined): Promise<void> {
    if (this.inFlight) return this.inFlight;
    const { client } = this;
    if (client.transport !== undefined && client.transport !== failedOn) return Promise.resolve();
    this.inFlight = (async () => {
      try {
        if (client.transport !== undefined) await client.close().catch(() => {});
        const transport = (await this.factory()) as TransportLike;
        this.beforeConnect(transport);
        await client.connect(transport);
      } finally {
        this.inFlight = undefined;
      }
    })();
    return this.inFlight;
  }

  /**
   * The recovery of a call for an expired session or a closed connection, `undefined` once the caller closed
   * the client. `failedOn`: the transport the call's last attempt ran on.
   */
  recovery(failedOn: () => TransportLike | undefined): Recovery | undefined {
    if (this.closedByCaller) return undefined;
    return async () => {
      // Closed by its caller meanwhile: not reconnected behind its back; the call ends as `Not connected`.
      if (this.closedByCaller) throw new Error('Not connected');
      // A failed reconnection is not final here: the next attempt connects again, and its failure (refused,
      // 401, ...) is classified and retried with backoff like any other.
      await this.reconnect(failedOn()).catch(() => {});
    };
  }

  /** Before an attempt: connects a client that is not connected (unless its caller closed it). */
  async ensureConnected(): Promise<void> {
    if (this.closedByCaller || this.client.transport !== undefined) return;
    try {
      await this.reconnect(undefined);
    } catch (error) {
      throw new ReconnectError(error);
    }
  }
}
