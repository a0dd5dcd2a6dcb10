/**
 * The parts of an MCP SDK `Client` and `Transport` that `withResilience` uses, structurally, so that it accepts a
 * client of either SDK line without importing either: `@modelcontextprotocol/sdk` 1.x (`Client` from
 * `@modelcontextprotocol/sdk/client/index.js`) and `@modelcontextprotocol/client` 2.x. Both are optional peer
 * dependencies.
 */

/** A JSON-RPC message as a transport sends it. */
export interface JsonRpcMessageLike {
  readonly jsonrpc?: string;
  readonly id?: string | number;
  readonly method?: string;
  readonly params?: Record<string, unknown>;
}

/** A client transport (stdio, Streamable HTTP, SSE, in-memory) of either SDK line. */
export interface TransportLike {
  start(): Promise<void>;
  send(message: JsonRpcMessageLike, options?: object): Promise<void>;
  close(): Promise<void>;
  onmessage?: ((message: JsonRpcMessageLike, extra?: unknown) => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onclose?: (() => void) | undefined;
  sessionId?: string | undefined;
}

/** Options of one request, as both SDK lines take them (`signal`, `timeout`, `maxTotalTimeout`, ...). */
export interface RequestOptionsLike {
  signal?: AbortSignal;
  timeout?: number;
  maxTotalTimeout?: number;
  [key: string]: unknown;
}

/** An MCP client of either SDK line: v1 `Client` (`request(req, schema, options)`) or v2 (`request(req, options)`). */
export interface McpClientLike {
  // biome-ignore lint/suspicious/noExplicitAny: both SDK lines overload `request` differently
  request(...args: any[]): Promise<unknown>;
  // biome-ignore lint/suspicious/noExplicitAny: the transport types of the two lines differ
  connect(transport: any, options?: any): Promise<void>;
  close(): Promise<void>;
  /** A {@link TransportLike} (typed loosely: each line types its transport's callbacks its own way). */
  readonly transport?: object | undefined;
  getServerVersion(): { name: string } | undefined;
  // biome-ignore lint/suspicious/noExplicitAny: both lines type their own params and results
  listTools(params?: any, options?: any): Promise<{ nextCursor?: string | undefined }>;
}
