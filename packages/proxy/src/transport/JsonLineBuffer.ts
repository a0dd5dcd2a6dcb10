import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** The SDK's limit of one stdio read buffer (10 MiB): a peer that never ends its line cannot exhaust memory. */
export const jsonLineDefaults = { maxBufferBytes: 10 * 1024 * 1024 } as const;

/**
 * The read buffer of a stdio transport, as the SDK's `ReadBuffer` (same interface, same limit) but without its
 * schema validation of each message: the proxy forwards messages, it does not interpret them, and the SDK's
 * `Protocol` checks each message's shape again when it dispatches it. A line that is not a JSON object is an
 * error naming what it is (the transport reports it on `onerror` and goes on with the next line).
 */
export class JsonLineBuffer {
  private buffer: Buffer | undefined;

  constructor(private readonly maxBytes: number = jsonLineDefaults.maxBufferBytes) {}

  /**
   * Gives an SDK stdio transport (`StdioClientTransport`, `StdioServerTransport` of SDK 1.x) this buffer in
   * place of its own. Throws when the transport has no such buffer (an SDK that changed its internals).
   */
  static install<T extends object>(transport: T): T {
    const t = transport as { _readBuffer?: unknown };
    if (typeof (t._readBuffer as { readMessage?: unknown } | undefined)?.readMessage !== 'function') {
      throw new Error('mcp-resilience: this SDK stdio transport has no read buffer to replace');
    }
    t._readBuffer = new JsonLineBuffer();
    return transport;
  }

  append(chunk: Buffer): void {
    const size = (this.buffer?.length ?? 0) + chunk.length;
    if (size > this.maxBytes) {
      this.clear();
      throw new Error(`ReadBuffer exceeded maximum size of ${this.maxBytes} bytes`);
    }
    this.buffer = this.buffer ? Buffer.concat([this.buffer, chunk]) : chunk;
  }

  readMessage(): JSONRPCMessage | null {
    const buffer = this.buffer;
    if (!buffer) return null;
    const index = buffer.indexOf(10);
    if (index === -1) return null;
    const end = index > 0 && buffer[index - 1] === 13 ? index - 1 : index;
    const line = buffer.toString('utf8', 0, end);
    this.buffer = index + 1 === buffer.length ? undefined : buffer.subarray(index + 1);
    const message: unknown = JSON.parse(line);
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      throw new Error(
        `not a JSON-RPC message (a JSON ${Array.isArray(message) ? 'array' : typeof message}): ${line.slice(0, 80)}`,
      );
    }
    return message as JSONRPCMessage;
  }

  clear(): void {
    this.buffer = undefined;
  }
}
