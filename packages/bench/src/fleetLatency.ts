import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { createResilience, type Resilience } from '@mcp-resilience/middleware';
import { createRedisHealthStore } from '@mcp-resilience/middleware/redis';

/** Success-path latency per call (ns, median of interleaved batches): no store, a reachable Redis, an unreachable one. */
export interface FleetLatency {
  readonly noStoreNs: number;
  readonly reachableNs: number;
  readonly unreachableNs: number;
}

const BATCH = 20_000;
const ROUNDS = 15;

/** Starts a real redis-server on a free port of 127.0.0.1 (fails with a clear message when it is absent). */
async function startRedis(): Promise<{ url: string; stop: () => void }> {
  try {
    execFileSync('sh', ['-c', 'command -v redis-server']);
  } catch {
    throw new Error(
      'redis-server is not installed (Debian: apt-get install -y redis-server): the fleet latency run needs it',
    );
  }
  const port = await new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => resolve(typeof a === 'object' && a ? a.port : 0));
    });
  });
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => d.toString().includes('Ready to accept') && resolve());
    child.once('exit', () => reject(new Error('redis-server exited')));
  });
  return { url: `redis://127.0.0.1:${port}`, stop: () => child.kill('SIGKILL') };
}

async function batch(r: Resilience): Promise<number> {
  const fn = () => 1;
  const call = { endpoint: 'tool-server' };
  const start = process.hrtime.bigint();
  for (let i = 0; i < BATCH; i++) await r.execute(fn, call);
  return Number(process.hrtime.bigint() - start) / BATCH;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

export async function measureFleetLatency(): Promise<FleetLatency> {
  const redis = await startRedis();
  const store = createRedisHealthStore({ url: redis.url, keyPrefix: 'bench:' });
  await store.ready;
  const closedPort = createRedisHealthStore({ url: 'redis://127.0.0.1:1', keyPrefix: 'bench:' });
  const pipelines = {
    none: createResilience(),
    reachable: createResilience({ healthStore: store }),
    unreachable: createResilience({ healthStore: closedPort, fleetFirstReadWaitMs: 0 }),
  };
  const warn = console.warn;
  console.warn = () => {};
  const samples = { none: [] as number[], reachable: [] as number[], unreachable: [] as number[] };
  try {
    for (const r of Object.values(pipelines)) await batch(r); // warm-up (and the first read)
    for (let round = 0; round < ROUNDS; round++) {
      for (const key of ['none', 'reachable', 'unreachable'] as const)
        samples[key].push(await batch(pipelines[key]));
    }
  } finally {
    console.warn = warn;
    await Promise.all(Object.values(pipelines).map((r) => r.close()));
    redis.stop();
  }
  return {
    noStoreNs: median(samples.none),
    reachableNs: median(samples.reachable),
    unreachableNs: median(samples.unreachable),
  };
}
