import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCRequest, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { ChaosConnection } from '../core/ChaosConnection.js';
import type { Admission, FaultCore } from '../core/FaultCore.js';

export interface HttpSessionHooks {
  /** The client's `initialize` went through: the session id is live. */
  onInitialized(session: HttpSession): void;
  /** The session ended: the client deleted it (HTTP DELETE), or its backend went away. */
  onDeleted(session: HttpSession): void;
}

/** What answers a session's requests behind its fault-injecting connection: an MCP server, or an upstream. */
export interface SessionBackend {
  start(): Promise<void>;
  close(): Promise<void>;
  /** A `crash` fault hit the session: go away abruptly. Default: `close()`. */
  crash?(): void;
}

/**
 * Creates the backend of a new session. It talks to the client through `connection` (already wired to the
 * session's transport) and calls `ended` if it goes away on its own.
 */
export type BackendFactory = (connection: ChaosConnection, ended: () => void) => SessionBackend;

/** One Streamable HTTP session: its own transport, fault-injecting connection and backend. */
export class HttpSession {
  readonly transport: StreamableHTTPServerTransport;
  readonly connection: ChaosConnection;
  private readonly backend: SessionBackend;
  /** Faults the HTTP layer decided for requests on their way through the transport. */
  private readonly expected = new Map<RequestId, Admission>();

  constructor(
    readonly id: string,
    core: FaultCore,
    hooks: HttpSessionHooks,
    createBackend: BackendFactory,
  ) {
    this.transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => id,
      onsessioninitialized: () => hooks.onInitialized(this),
      onsessionclosed: () => hooks.onDeleted(this),
    });
    this.connection = new ChaosConnection(this.transport, {
      log: core.log,
      admit: (request) =>
        this.take(request) ?? core.admit([request], { transport: 'http', sessionId: id })[0]!,
      onCancelled: (requestId, reason) =>
        core.cancelled(requestId, { transport: 'http', sessionId: id }, 'notification', reason),
    });
    this.backend = createBackend(this.connection, () => hooks.onDeleted(this));
  }

  start(): Promise<void> {
    return this.backend.start();
  }

  /** Remembers the decisions for requests that are about to be handed to the transport. */
  expect(admissions: readonly Admission[]): void {
    for (const admission of admissions) this.expected.set(admission.entry.requestId, admission);
  }

  close(): Promise<void> {
    return this.backend.close();
  }

  crash(): void {
    if (this.backend.crash) this.backend.crash();
    else void this.backend.close();
  }

  private take(request: JSONRPCRequest): Admission | undefined {
    const admission = this.expected.get(request.id);
    this.expected.delete(request.id);
    return admission;
  }
}
