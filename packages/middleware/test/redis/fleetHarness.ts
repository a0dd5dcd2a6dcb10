import { type ChildProcess, fork } from 'node:child_process';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

export type Mode = 'ok' | 'down' | 'rate_limited' | 'hang';

/** The endpoint the replicas call: a real HTTP server on 127.0.0.1 that counts requests per replica. */
export class Endpoint {
  mode: Mode = 'ok';
  readonly requests: { readonly replica: string; readonly time: number }[] = [];
  private readonly hung: ServerResponse[] = [];
  private waiters: { which: (replica: string) => boolean; resolve: (replica: string) => void }[] = [];
  private server: Server | undefined;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    const address = this.server.address();
    this.url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/call`;
  }

  /** Requests from `replica` (all when omitted) since the start. */
  count(replica?: string): number {
    return this.requests.filter((r) => replica === undefined || r.replica === replica).length;
  }

  /** Resolves with the replica of the next request that `which` accepts. */
  nextRequest(which: (replica: string) => boolean = () => true): Promise<string> {
    return new Promise((resolve) => this.waiters.push({ which, resolve }));
  }

  async stop(): Promise<void> {
    for (const res of this.hung.splice(0)) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const replica = String(req.headers['x-replica'] ?? '?');
    this.requests.push({ replica, time: Date.now() });
    for (const w of this.waiters.filter((x) => x.which(replica))) {
      this.waiters.splice(this.waiters.indexOf(w), 1);
      w.resolve(replica);
    }
    if (this.mode === 'hang') {
      this.hung.push(res);
      return;
    }
    if (this.mode === 'ok') res.writeHead(200).end('ok');
    else if (this.mode === 'down') res.writeHead(503).end('unavailable');
    else res.writeHead(429, { 'retry-after': '30' }).end('slow down');
  }
}

export interface CallResult {
  readonly ok: boolean;
  readonly ms: number;
  readonly reason?: string;
  readonly source?: string;
}

export interface FleetEvent {
  readonly type: string;
  readonly time: number;
  readonly to?: string;
  readonly reason?: string;
  readonly decision?: string;
  readonly kind?: string;
}

const tsx = createRequire(import.meta.url).resolve('tsx');
const script = fileURLToPath(new URL('./replica.ts', import.meta.url));

/** One replica: a real child process (`test/redis/replica.ts`), driven over IPC. */
export class Replica {
  readonly events: FleetEvent[] = [];
  readonly looped: CallResult[] = [];
  readonly warnings: string[] = [];
  private readonly child: ChildProcess;
  private readonly replies = new Map<number, (r: CallResult) => void>();
  private nextId = 1;
  private watchers: (() => void)[] = [];
  readonly ready: Promise<void>;
  readonly exited: Promise<void>;

  constructor(
    readonly id: string,
    env: Record<string, string>,
  ) {
    this.child = fork(script, [], {
      execArgv: ['--import', tsx],
      env: { ...process.env, ...env, REPLICA_ID: id },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.exited = new Promise((resolve) => this.child.once('exit', () => resolve()));
    this.ready = new Promise((resolve, reject) => {
      this.child.once('exit', (code) => reject(new Error(`replica ${id} exited (${code})`)));
      this.child.on('message', (m: Record<string, unknown>) => {
        if (m.ready) resolve();
        this.onMessage(m);
      });
    });
  }

  call(timeoutMs?: number): Promise<CallResult> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.replies.set(id, resolve);
      this.child.send({ op: 'call', id, timeoutMs });
    });
  }

  loop(everyMs = 50): void {
    this.child.send({ op: 'loop', everyMs });
  }

  stopLoop(): void {
    this.child.send({ op: 'stop' });
  }

  /** Resolves when `test` holds (checked on every message from the child). */
  until(test: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
    if (test()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`replica ${this.id}: no ${what} within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const check = () => {
        if (!test()) return;
        clearTimeout(timer);
        this.watchers = this.watchers.filter((w) => w !== check);
        resolve();
      };
      this.watchers.push(check);
    });
  }

  /** Resolves with the first event (after `from` events) that `which` accepts. */
  event(which: (e: FleetEvent) => boolean, what: string, from = 0): Promise<FleetEvent> {
    const find = () => this.events.slice(from).find(which);
    return this.until(() => find() !== undefined, what).then(() => find() as FleetEvent);
  }

  kill9(): Promise<void> {
    this.child.kill('SIGKILL');
    return this.exited;
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    this.child.send({ op: 'exit' });
    await this.exited;
  }

  private onMessage(m: Record<string, unknown>): void {
    if (typeof m.reply === 'number') {
      this.replies.get(m.reply)?.(m.result as CallResult);
      this.replies.delete(m.reply);
    }
    if (m.event) this.events.push(m.event as FleetEvent);
    if (m.looped) this.looped.push(m.looped as CallResult);
    if (typeof m.warn === 'string') this.warnings.push(m.warn);
    for (const w of [...this.watchers]) w();
  }
}
