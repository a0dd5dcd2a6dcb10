import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { PROXIED_SERVICE, serviceName } from './AgentConfig.js';

const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const AGENTS = 5;
const NAIVE = 3;

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** Every process whose ancestry leads to `pid`. */
function descendants(pid: number): number[] {
  const table = execFileSync('ps', ['-eo', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  const walk = (parent: number) => {
    for (const [child, ppid] of table) {
      if (ppid === parent) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return found;
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  output: readonly string[] = [],
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 1_000));
  }
  const tail = output.join('').split('\n').slice(-30).join('\n');
  throw new Error(
    `timed out waiting for ${what}${last ? ` (last error: ${String(last)})` : ''}\ndemo output:\n${tail}`,
  );
}

interface Summary {
  calls: { total: number };
  retries: { total: number; successful: number; efficiency: number | null };
  breakers: Array<{ server: string; state: string }>;
}

describe('npm run demo', () => {
  let demo: ChildProcess | undefined;
  const output: string[] = [];
  // Whatever happened, nothing the demo started outlives the test: SIGTERM, then SIGKILL to what is left.
  afterAll(async () => {
    if (!demo?.pid || !alive(demo.pid)) return;
    const family = [demo.pid, ...descendants(demo.pid)];
    demo.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 8_000));
    for (const pid of family.filter(alive)) process.kill(pid, 'SIGKILL');
  }, 15_000);

  it('feeds the dashboard from every agent, tells naive from resilient, and stops without leftovers', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    demo = spawn(process.execPath, [cli, '--speed', '20', '--port', String(port), '--seed', '3'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    for (const stream of [demo.stdout, demo.stderr])
      stream?.on('data', (chunk) => output.push(String(chunk)));
    const summary = async (query: string) => {
      const response = await fetch(`${url}/api/v1/summary?${query}`);
      return response.ok ? ((await response.json()) as Summary) : undefined;
    };

    // It prints the URLs of its chaos MCP servers, for the README's "Use it" example.
    await until(
      'the chaos server URLs',
      async () => (/search: http:\/\/127\.0\.0\.1:\d+\/mcp/.test(output.join('')) ? true : undefined),
      120_000,
      output,
    );

    // Every agent's telemetry arrives (each exports with its own service.instance.id).
    // Resilient agent 1 reaches its weather server through `mcp-resilience wrap`, which reports on its own.
    const expected = [
      `${PROXIED_SERVICE}/proxied-1`,
      ...Array.from({ length: AGENTS }, (_, i) => `${serviceName('resilient')}/resilient-${i + 1}`),
      ...Array.from({ length: NAIVE }, (_, i) => `${serviceName('naive')}/naive-${i + 1}`),
    ].sort();
    await until(
      'data from every agent',
      async () => {
        const response = await fetch(`${url}/api/v1/instances`);
        if (!response.ok) return undefined;
        const { instances } = (await response.json()) as {
          instances: Array<{ service: string; instance: string }>;
        };
        const seen = new Set(instances.map((i) => `${i.service}/${i.instance}`));
        return expected.every((e) => seen.has(e)) ? true : undefined;
      },
      120_000,
      output,
    );

    // Once both groups have retried enough, the naive group's retry efficiency is the lower one.
    const [resilient, naive] = await until(
      'enough retries in both groups',
      async () => {
        const r = await summary(`service=${serviceName('resilient')}`);
        const n = await summary(`service=${serviceName('naive')}`);
        return r && n && r.retries.total >= 20 && n.retries.total >= 20 ? [r, n] : undefined;
      },
      120_000,
      output,
    );
    expect(naive.retries.efficiency!).toBeLessThan(resilient.retries.efficiency!);
    // The naive group has no breaker, so it reports none (not "closed instances" beside the resilient ones).
    expect(naive.breakers).toEqual([]);
    expect(resilient.breakers.length).toBeGreaterThan(0);

    // The outage opens the tickets server's breaker for the resilient agents.
    const transitions = await until(
      'a breaker transition',
      async () => {
        const response = await fetch(`${url}/api/v1/transitions?service=${serviceName('resilient')}`);
        const body = (await response.json()) as { transitions: Array<{ server: string; to: string }> };
        return body.transitions.length > 0 ? body.transitions : undefined;
      },
      120_000,
      output,
    );
    expect(transitions.some((t) => t.to === 'open')).toBe(true);

    // The canary: both variants of the resilient group reach the Experiments page.
    await until(
      'both canary variants on the Experiments page',
      async () => {
        const response = await fetch(`${url}/experiments?range=1h&service=${serviceName('resilient')}`);
        const html = await response.text();
        return html.includes('data-variant="control"') && html.includes('data-variant="candidate"')
          ? true
          : undefined;
      },
      120_000,
      output,
    );

    // SIGTERM stops everything the demo started.
    const started = descendants(demo.pid!);
    expect(started.length).toBeGreaterThanOrEqual(1 + AGENTS + NAIVE);
    const exited = new Promise<number | null>((resolve) => demo!.once('exit', resolve));
    demo.kill('SIGTERM');
    expect(await exited).toBe(0);
    // Its children end on their own signal: wait for that event (polled), not for a fixed time.
    await until(
      'every process the demo started to end',
      async () => (started.some(alive) ? undefined : true),
      15_000,
      output,
    );
    expect(started.filter(alive), output.join('')).toEqual([]);
  }, 300_000);
});
