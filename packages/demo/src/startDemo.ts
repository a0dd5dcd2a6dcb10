import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type ChaosHttpServer, startChaosHttpServer } from '@mcp-resilience/chaos';
import { type AgentConfig, PROXIED_SERVICE } from './AgentConfig.js';
import { ChildProcesses } from './ChildProcesses.js';
import type { DemoOptions } from './parseFlags.js';
import { planFor, weatherPlan } from './plans.js';
import { type Phase, phaseAt } from './timeline.js';

/** A problem the user can fix (a missing build, a busy port): reported in one line, never as a stack trace. */
export class DemoError extends Error {}

export interface Demo {
  /** The dashboard's URL (or the external OTLP endpoint). */
  readonly url: string;
  /** The chaos MCP servers' Streamable HTTP endpoints: point your own client at one (README "Use it"). */
  readonly chaosUrls: { readonly search: string; readonly tickets: string };
  /** The process ids of everything the demo started. */
  readonly pids: () => number[];
  /** Stops everything and resolves when nothing the demo started is left. */
  stop(): Promise<void>;
}

const require = createRequire(import.meta.url);
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

function built(path: string, what: string): string {
  if (!existsSync(path))
    throw new DemoError(`${what} is not built (${path} is missing): run \`npm run build\` first`);
  return path;
}

async function assertPortFree(port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const server = createServer();
    server.once('error', () =>
      reject(
        new DemoError(`port ${port} on 127.0.0.1 is busy: stop what uses it, or pass --port <another port>`),
      ),
    );
    server.listen(port, '127.0.0.1', () => server.close(() => resolve()));
  });
}

async function waitForDashboard(url: string, exited: () => boolean, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (exited()) throw new DemoError('the dashboard exited during start-up (see its output above)');
    try {
      const response = await fetch(`${url}/api/v1/summary`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new DemoError(`the dashboard did not answer on ${url} within ${timeoutMs / 1000} s`);
}

/**
 * Starts the whole demo: the dashboard (embedded store), two chaos MCP servers over Streamable HTTP (`search`,
 * `tickets`; each agent also spawns its own stdio `weather` server), the resilient agents and the naive ones,
 * and the story's timeline, which changes the servers' fault plans phase by phase.
 */
export async function startDemo(
  options: DemoOptions,
  log: (line: string) => void = console.log,
): Promise<Demo> {
  const chaosCli = built(join(packageDir('@mcp-resilience/chaos'), 'dist/cli.js'), 'the chaos server');
  const proxyCli = built(join(packageDir('@mcp-resilience/proxy'), 'dist/cli.js'), 'the proxy');
  const agentScript = built(fileURLToPath(new URL('./agent.js', import.meta.url)), 'the demo');
  const children = new ChildProcesses();
  const workDir = await mkdtemp(join(tmpdir(), 'mcp-resilience-demo-'));
  const servers: ChaosHttpServer[] = [];
  let phaseTimer: NodeJS.Timeout | undefined;
  let stopped: Promise<void> | undefined;

  const stop = () =>
    (stopped ??= (async () => {
      clearInterval(phaseTimer);
      await children.stopAll();
      await Promise.allSettled(servers.map((s) => s.close()));
      await rm(workDir, { recursive: true, force: true });
    })());

  try {
    let url = options.otlpEndpoint;
    if (url === undefined) {
      const dashboardDir = packageDir('@mcp-resilience/dashboard');
      built(join(dashboardDir, '.next/BUILD_ID'), 'the dashboard');
      const server = built(join(dashboardDir, 'dist/server.mjs'), 'the dashboard');
      await assertPortFree(options.port);
      url = `http://127.0.0.1:${options.port}`;
      const dashboard = children.start('dashboard', [server], {
        PORT: String(options.port),
        HOST: '127.0.0.1',
        DATA_DIR: join(workDir, 'data'),
      });
      let exited = false;
      dashboard.once('exit', () => {
        exited = true;
      });
      await waitForDashboard(url, () => exited);
    }

    const startedAt = Date.now();
    let phase: Phase = phaseAt(0, options.speed);
    const search = await startChaosHttpServer({
      plan: planFor('search', phase, options.speed),
      seed: options.seed,
    });
    servers.push(search);
    const tickets = await startChaosHttpServer({
      plan: planFor('tickets', phase, options.speed),
      seed: options.seed + 1,
    });
    servers.push(tickets);
    const weatherPlanFile = join(workDir, 'weather-plan.json');
    await writeFile(weatherPlanFile, JSON.stringify(weatherPlan));

    const groups: Array<[AgentConfig['group'], number]> = [
      ['resilient', options.agents],
      ['naive', options.naiveAgents],
    ];
    for (const [group, count] of groups) {
      for (let id = 1; id <= count; id++) {
        const config: AgentConfig = {
          group,
          id,
          seed: options.seed,
          speed: options.speed,
          startedAt,
          otlpEndpoint: url,
          searchUrl: search.url,
          ticketsUrl: tickets.url,
          chaosCli,
          weatherPlanFile,
          // The first resilient agent reaches its weather server through `mcp-resilience wrap`.
          ...(group === 'resilient' && id === 1 ? { proxyCli } : {}),
        };
        children.start(`${group}-${id}`, [agentScript], {
          DEMO_AGENT_CONFIG: JSON.stringify(config),
          OTEL_LOG_LEVEL: 'error',
        });
      }
    }

    log(
      `mcp-resilience demo: ${options.agents} resilient agents, ${options.naiveAgents} naive agents, speed ×${options.speed}`,
    );
    log(`  dashboard: ${url}`);
    log(`  chaos MCP servers (Streamable HTTP, the faults of each phase): search: ${search.url}`);
    log(`                                                                 tickets: ${tickets.url}`);
    log(
      `  try your own client on one: OTEL_EXPORTER_OTLP_ENDPOINT=${url} MCP_URL=<url> node agent.mjs (README "Use it")`,
    );
    if (options.agents > 0) {
      log(`  resilient agent 1 reaches its weather server through mcp-resilience wrap (${PROXIED_SERVICE})`);
    }
    log(`  canary: 10% of the resilient agents' calls treat rate limits as final: ${url}/experiments`);
    log(`  phase: ${phase.name}: ${phase.story}`);
    phaseTimer = setInterval(() => {
      const next = phaseAt(Date.now() - startedAt, options.speed);
      if (next === phase) return;
      phase = next;
      search.setPlan(planFor('search', phase, options.speed));
      tickets.setPlan(planFor('tickets', phase, options.speed));
      log(`  phase: ${phase.name}: ${phase.story}`);
    }, 250);

    return { url, chaosUrls: { search: search.url, tickets: tickets.url }, pids: () => children.pids, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
