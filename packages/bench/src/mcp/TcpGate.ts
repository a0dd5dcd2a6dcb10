import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP gate in front of a server on 127.0.0.1: while it is down, its port is closed (connections are refused:
 * ECONNREFUSED) and every open connection is cut; up again, it forwards to the same server on the same port, so
 * the server behind keeps its sessions (a server that was unreachable, not one that lost its state).
 */
export class TcpGate {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private downSince: number | undefined;

  private constructor(
    private readonly target: number,
    private listenPort: number,
  ) {}

  /** Opens a gate on an ephemeral port of 127.0.0.1 that forwards to `targetPort`. */
  static async open(targetPort: number): Promise<TcpGate> {
    const gate = new TcpGate(targetPort, 0);
    await gate.up();
    return gate;
  }

  get port(): number {
    return this.listenPort;
  }

  /** Whether the gate is down now. */
  get isDown(): boolean {
    return this.downSince !== undefined;
  }

  /** Listens again on the same port. */
  async up(): Promise<void> {
    if (this.server) return;
    const server = createServer((client) => this.forward(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.listenPort, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('TcpGate: no TCP address');
    this.listenPort = address.port;
    this.server = server;
    this.downSince = undefined;
  }

  /** Closes the port (new connections are refused) and cuts every open connection. */
  async down(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    this.downSince = Date.now();
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
    await closed;
  }

  async close(): Promise<void> {
    await this.down();
  }

  private forward(client: Socket): void {
    const upstream = createConnection({ host: '127.0.0.1', port: this.target });
    for (const s of [client, upstream]) {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
