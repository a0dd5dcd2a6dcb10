import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import {
  ErrorCode,
  type JSONRPCMessage,
  type JSONRPCNotification,
  type JSONRPCRequest,
  type ProgressToken,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { ChaosConnection } from '../core/ChaosConnection.js';
import type { BackendFactory, SessionBackend } from '../http/HttpSession.js';

/** An MCP server the proxy spawns, one process per HTTP session, speaking newline-delimited JSON-RPC on stdio. */
export interface StdioUpstream {
  command: string;
  args?: string[];
  /** Added to the proxy's own environment (which the process inherits). */
  env?: Record<string, string>;
  cwd?: string;
  /** The process's stderr: passed through to the proxy's (default) or dropped. */
  stderr?: 'inherit' | 'ignore';
}

/** How long a closing upstream gets after the end of its stdin before SIGTERM, and again before SIGKILL. */
const GRACE_MS = 1000;

export const stdioBackend =
  (upstream: StdioUpstream): BackendFactory =>
  (connection, ended) =>
    new StdioBridge(upstream, connection, ended);

const isResponse = (message: object): message is { id: RequestId } =>
  'id' in message && !('method' in message) && ('result' in message || 'error' in message);

/**
 * A raw JSON-RPC bridge between one HTTP session (its fault-injecting connection) and one spawned upstream
 * process. Messages go through unchanged in both directions; the bridge only routes what the upstream sends
 * to the right HTTP stream: responses by id, progress notifications by their request's `progressToken`,
 * everything else (server requests, other notifications) to the session's standalone GET stream.
 */
class StdioBridge implements SessionBackend {
  private child?: ChildProcess;
  private exited: Promise<void> = Promise.resolve();
  /** progressToken → the id of the request that carries it, while that request is open. */
  private readonly progress = new Map<ProgressToken, RequestId>();
  private readonly tokens = new Map<RequestId, ProgressToken>();
  /** Requests forwarded and not answered yet. */
  private readonly pending = new Set<RequestId>();

  constructor(
    private readonly upstream: StdioUpstream,
    private readonly connection: ChaosConnection,
    private readonly ended: () => void,
  ) {}

  async start(): Promise<void> {
    const { command, args = [], env, cwd, stderr = 'inherit' } = this.upstream;
    const child = spawn(command, args, {
      cwd,
      env: { ...process.env, ...env },
      stdio: ['pipe', 'pipe', stderr],
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    this.child = child;
    this.exited = new Promise((resolve) => child.once('close', () => resolve()));
    child.on('error', () => undefined); // a failed kill; the 'close' event still comes
    child.stdin?.on('error', () => undefined); // EPIPE once the process is gone; 'close' handles it
    createInterface({ input: child.stdout!, crlfDelay: Number.POSITIVE_INFINITY }).on('line', (line) =>
      this.fromUpstream(line),
    );
    void this.exited.then(() => {
      this.child = undefined;
      // What a stdio client of the process would see for its pending requests.
      for (const id of [...this.pending]) this.connectionClosed(id);
      void this.connection.close();
    });

    this.connection.onmessage = (message) => this.toUpstream(message);
    this.connection.onerror = () => undefined;
    this.connection.onclose = () => {
      this.terminate();
      this.ended();
    };
    await this.connection.start();
  }

  async close(): Promise<void> {
    await this.connection.close();
    this.terminate();
    await this.exited;
  }

  crash(): void {
    this.child?.kill('SIGKILL');
  }

  private toUpstream(message: JSONRPCMessage): void {
    const isRequest = 'method' in message && 'id' in message;
    if (!this.child?.stdin?.writable) {
      if (isRequest) this.connectionClosed(message.id);
      return;
    }
    if (isRequest) this.opened(message);
    this.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  /** Answers a request the process will never answer, as the SDK's stdio client would fail it. */
  private connectionClosed(id: RequestId): void {
    this.pending.delete(id);
    const error = { code: ErrorCode.ConnectionClosed, message: 'Connection closed' };
    this.connection.send({ jsonrpc: '2.0', id, error }).catch(() => undefined);
  }

  /** A client request is forwarded: it counts as executed; remember its progress token. */
  private opened(request: JSONRPCRequest): void {
    this.pending.add(request.id);
    this.connection.markExecuted(request.id);
    const token = request.params?._meta?.progressToken;
    if (token === undefined) return;
    this.progress.set(token, request.id);
    this.tokens.set(request.id, token);
  }

  private fromUpstream(line: string): void {
    if (line.trim() === '') return;
    let message: JSONRPCMessage;
    try {
      message = JSON.parse(line) as JSONRPCMessage;
    } catch {
      return; // not JSON-RPC: an SDK client would drop it too
    }
    if (typeof message !== 'object' || message === null) return;
    let relatedRequestId: RequestId | undefined;
    if (isResponse(message)) {
      this.pending.delete(message.id);
      const token = this.tokens.get(message.id);
      this.tokens.delete(message.id);
      if (token !== undefined) this.progress.delete(token);
    } else if ('method' in message && message.method === 'notifications/progress') {
      const token = (message as JSONRPCNotification).params?.progressToken as ProgressToken | undefined;
      if (token !== undefined) relatedRequestId = this.progress.get(token);
    }
    // Fails when the client's stream is gone (it gave up on the request): nothing left to deliver to.
    this.connection
      .send(message, relatedRequestId === undefined ? undefined : { relatedRequestId })
      .catch(() => undefined);
  }

  /** Ends the process: its stdin first (as the SDK's stdio client does), then SIGTERM, then SIGKILL. */
  private terminate(): void {
    const child = this.child;
    if (!child || child.stdin?.writableEnded) return;
    child.stdin?.end();
    const term = setTimeout(() => child.kill('SIGTERM'), GRACE_MS);
    const kill = setTimeout(() => child.kill('SIGKILL'), 2 * GRACE_MS);
    child.once('close', () => {
      clearTimeout(term);
      clearTimeout(kill);
    });
  }
}
