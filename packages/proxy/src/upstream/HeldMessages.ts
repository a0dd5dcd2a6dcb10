import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** Options of {@link HeldMessages}. All optional but `server`. */
export interface HeldMessagesOptions {
  /** The upstream, as the stderr line names it. */
  readonly server: string;
  /** The most messages held; later ones are dropped. Default 100. */
  readonly maxMessages?: number;
  /** The most bytes held (each message as its JSON line); later messages are dropped. Default 1 MiB. */
  readonly maxBytes?: number;
  /** Where the line saying messages were dropped goes. Default: the proxy's stderr. */
  readonly warn?: (line: string) => void;
}

export const heldMessagesDefaults = { maxMessages: 100, maxBytes: 1024 * 1024 } as const;

const stderr = (line: string) => {
  process.stderr.write(line);
};

/**
 * The messages a stdio child writes while no client reads it (between its refusal of a 2025-11-25 `initialize`
 * and the start of the 2026-07-28 client's transport), held in order to be delivered then. Bounded in count and
 * bytes: beyond either bound a message is dropped, and the first drop is said once on stderr, naming the server.
 */
export class HeldMessages {
  private readonly messages: JSONRPCMessage[] = [];
  private bytes = 0;
  private dropped = false;
  private readonly maxMessages: number;
  private readonly maxBytes: number;

  constructor(private readonly options: HeldMessagesOptions) {
    this.maxMessages = options.maxMessages ?? heldMessagesDefaults.maxMessages;
    this.maxBytes = options.maxBytes ?? heldMessagesDefaults.maxBytes;
  }

  /** Holds `message`, unless a bound is reached (then it is dropped). */
  hold(message: JSONRPCMessage): void {
    const size = Buffer.byteLength(JSON.stringify(message)) + 1;
    if (this.messages.length < this.maxMessages && this.bytes + size <= this.maxBytes) {
      this.messages.push(message);
      this.bytes += size;
      return;
    }
    if (this.dropped) return;
    this.dropped = true;
    (this.options.warn ?? stderr)(
      `mcp-resilience: upstream "${this.options.server}" wrote more than ${this.maxMessages} messages or ` +
        `${this.maxBytes} bytes before its 2026-07-28 connection started; the later ones are dropped\n`,
    );
  }

  /** The messages held, in the order written; none are held afterwards. */
  take(): JSONRPCMessage[] {
    const messages = this.messages.splice(0);
    this.bytes = 0;
    return messages;
  }
}
