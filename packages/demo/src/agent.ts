import { setTimeout as sleep } from 'node:timers/promises';
import { observeFetch, withResilience } from '@mcp-resilience/middleware/mcp';
import { seededRandom } from '@mcp-resilience/middleware/testing';
import { setupTelemetry } from '@mcp-resilience/telemetry';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { type AgentConfig, PROXIED_SERVICE, serviceName } from './AgentConfig.js';
import { naiveOptions, resilientOptions } from './policies.js';
import { phaseAt } from './timeline.js';
import { nextStep, type Step } from './tools.js';
import { withoutBreakerState } from './withoutBreakerState.js';

/**
 * One simulated agent: a scripted ReAct-style loop. It chooses a tool, calls it, reads the result, fixes its
 * arguments after a validation error (as a model would), and goes on, until SIGTERM.
 */
async function main(config: AgentConfig) {
  const telemetry = setupTelemetry({
    serviceName: serviceName(config.group),
    endpoint: config.otlpEndpoint,
    resourceAttributes: { 'service.instance.id': `${config.group}-${config.id}` },
  });
  const policy = config.group === 'resilient' ? resilientOptions(config.speed) : naiveOptions(config.speed);
  const random = seededRandom(config.seed * 1_000 + config.id);

  const weatherServer = [
    process.execPath,
    config.chaosCli,
    'serve',
    '--transport',
    'stdio',
    '--plan',
    config.weatherPlanFile,
    '--seed',
    String(config.seed + config.id),
  ];
  // The proxied agent spawns `mcp-resilience wrap -- <weather server>` instead: the layer runs in the wrapper.
  const wrap = config.proxyCli
    ? [config.proxyCli, 'wrap', '--server-name', 'weather', '--service-name', PROXIED_SERVICE, '--']
    : [];
  const weatherTransport = () =>
    new StdioClientTransport({
      command: process.execPath,
      args: wrap.length > 0 ? [...wrap, ...weatherServer] : weatherServer.slice(1), // wrap runs node <server>
      env: {
        ...inheritedEnv(),
        OTEL_EXPORTER_OTLP_ENDPOINT: config.otlpEndpoint,
        OTEL_RESOURCE_ATTRIBUTES: `service.instance.id=proxied-${config.id}`,
      },
      stderr: 'ignore',
    });
  const http = (url: string) => {
    const fetch = observeFetch();
    return { fetch, transport: () => new StreamableHTTPClientTransport(new URL(url), { fetch }) };
  };
  const search = http(config.searchUrl);
  const tickets = http(config.ticketsUrl);
  const connect = async (
    name: Step['server'],
    transport: () => StdioClientTransport | StreamableHTTPClientTransport,
    fetch?: ReturnType<typeof observeFetch>,
  ) => {
    const client = new Client({ name: `${serviceName(config.group)}-${config.id}`, version: '1.0.0' });
    // The server may be in an outage when the agent starts: keep trying, as a supervisor would.
    for (;;) {
      try {
        await client.connect(transport());
        break;
      } catch {
        await client.close().catch(() => {});
        await sleep(1_000 / config.speed);
      }
    }
    // Through the wrapper, the client is a plain one: the wrapper classifies, retries and reports.
    if (name === 'weather' && config.proxyCli) return client;
    return withResilience(client, {
      ...policy,
      server: name,
      recorder: config.group === 'resilient' ? telemetry.recorder : withoutBreakerState(telemetry.recorder),
      ...(fetch ? { fetch } : {}),
      ...(config.group === 'resilient' ? { reconnect: transport } : {}),
    });
  };
  const clients = {
    weather: await connect('weather', weatherTransport),
    search: await connect('search', search.transport, search.fetch),
    tickets: await connect('tickets', tickets.transport, tickets.fetch),
  };

  let stopping = false;
  const stop = () => {
    stopping = true;
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);

  const call = (step: Step, args: Record<string, unknown>) =>
    clients[step.server].callTool({ name: step.tool, arguments: args }, undefined, {
      timeout: 10_000 / config.speed,
    }) as Promise<CallToolResult>;

  while (!stopping) {
    const phase = phaseAt(Date.now() - config.startedAt, config.speed);
    const step = nextStep(random, phase.name === 'bad_arguments' ? 0.5 : 0.05);
    try {
      const result = await call(step, step.args);
      // The model reads a validation error and corrects its arguments.
      if (result.isError && step.fixed && !stopping) await call(step, step.fixed);
    } catch {
      // The agent reads the failure (already classified and retried where it could help) and moves on.
    }
    await sleep((200 + random() * 600) / config.speed);
  }

  await Promise.allSettled(Object.values(clients).map((c) => c.close()));
  await telemetry.shutdown();
  process.exit(0);
}

/** The agent's environment without undefined values (what a spawned server inherits). */
function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (value !== undefined) env[key] = value;
  return env;
}

const raw = process.env.DEMO_AGENT_CONFIG;
if (!raw) {
  console.error('agent: DEMO_AGENT_CONFIG is not set: agents are started by the demo (npm run demo)');
  process.exit(2);
}
main(JSON.parse(raw) as AgentConfig).catch((error) => {
  console.error(`agent: ${(error instanceof Error ? error.message : String(error)).split('\n')[0]}`);
  process.exit(1);
});
