import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { JSONRPCRequest, RequestId } from '@modelcontextprotocol/sdk/types.js';
import { ChaosConnection } from '../core/ChaosConnection.js';
import type { Admission, ChaosCore } from '../core/ChaosCore.js';

export interface HttpSessionHooks {
  /** The client's `initialize` went through: the session id is live. */
  onInitialized(session: HttpSession): void;
  /** The client deleted the session (HTTP DELETE). */
  onDeleted(session: HttpSession): void;
}

/** One Streamable HTTP session: its own transport, fault-injecting connection and MCP server. */
export class HttpSession {
  readonly transport: StreamableHTTPServerTransport;
  readonly connection: ChaosConnection;
  private readonly server: McpServer;
  /** Faults the HTTP layer decided for requests on their way through the transport. */
  private readonly expected = new Map<RequestId, Admission>();

  constructor(
    readonly id: string,
    core: ChaosCore,
    hooks: HttpSessionHooks,
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
    });
    this.server = core.createToolServer((requestId) => this.connection.markExecuted(requestId));
  }

  start(): Promise<void> {
    return this.server.connect(this.connection);
  }

  /** Remembers the decisions for requests that are about to be handed to the transport. */
  expect(admissions: readonly Admission[]): void {
    for (const admission of admissions) this.expected.set(admission.entry.requestId, admission);
  }

  close(): Promise<void> {
    return this.server.close();
  }

  private take(request: JSONRPCRequest): Admission | undefined {
    const admission = this.expected.get(request.id);
    this.expected.delete(request.id);
    return admission;
  }
}
