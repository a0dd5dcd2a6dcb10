/*
 * The lone agent through the real MCP client (issue #18): a chaos server on 127.0.0.1 behind a TCP gate, the real
 * SDK client over Streamable HTTP, and agents calling one tool at a time with a think time between calls. The gate
 * closes (connection refused) and opens again on a schedule, in real time; each agent's requests are counted by
 * the fetch its transport uses, so the metrics are those of the simulated scenarios (`computeMetrics`).
 */
import { startChaosHttpServer } from '@mcp-resilience/chaos';
import { withResilience } from '@mcp-resilience/middleware/mcp';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { computeMetrics, type Metrics } from '../metrics.js';
import type { AttemptTrace, CallTrace } from '../simulate.js';
import { TcpGate } from './TcpGate.js';

export interface McpLoneAgentOptions {
  /** The server is reachable for this long first, ms. */
  readonly upMs?: number;
  /** Then unreachable (connection refused) for this long. */
  readonly downMs?: number;
  /** Then reachable again until the window ends. */
  readonly afterMs?: number;
  /** The model's think time between an answer and the next call. */
  readonly thinkMs?: number;
  /** The SDK's per-request `{ timeout }` of the agents "with a deadline". */
  readonly timeoutMs?: number;
}

export const mcpLoneAgentDefaults = {
  upMs: 5_000,
  downMs: 15_000,
  afterMs: 5_000,
  thinkMs: 1_500,
  timeoutMs: 2_000,
} as const satisfies Required<McpLoneAgentOptions>;

export type McpAgentKind = 'naive' | 'mcp-resilience';

export interface McpAgentResult {
  readonly policy: McpAgentKind;
  /** The SDK request option the agent passed: `{ timeout }` or nothing. */
  readonly timeoutMs?: number;
  readonly metrics: Metrics;
  /** How the calls ended (success, the error's name and reason). */
  readonly outcomes: Record<string, number>;
  /** Calls still running at the window's end (cut then, not counted as completed). */
  readonly unfinished: number;
  /** Requests sent while the server was unreachable, by every call (the unfinished ones too). */
  readonly requestsWhileDown: number;
}

export interface McpLoneAgentResult {
  readonly options: Required<McpLoneAgentOptions>;
  readonly windowMs: number;
  readonly agents: readonly McpAgentResult[];
  readonly wallMs: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const CALL = { name: 'get_weather', arguments: { city: 'Paris' } };

/** What the caller got, in a few words. */
function outcomeOf(error: unknown): string {
  const e = error as { name?: unknown; reason?: unknown; code?: unknown };
  if (e?.name === 'ResilienceError' && typeof e.reason === 'string') return `ResilienceError(${e.reason})`;
  const name = typeof e?.name === 'string' ? e.name : 'Error';
  return typeof e?.code === 'number' || typeof e?.code === 'string' ? `${name} ${String(e.code)}` : name;
}

/** One agent: its client, transport and the trace its fetch writes. */
interface Agent {
  readonly kind: McpAgentKind;
  readonly timeoutMs: number | undefined;
  /** The connected client; for mcp-resilience, the one `withResilience` returned. */
  client: Client;
  readonly calls: CallTrace[];
  current: CallTrace | undefined;
}

/** A fetch that records every `tools/call` POST as an attempt of the agent's current call. */
function countingFetch(agent: Agent, gate: TcpGate, t0: number): typeof fetch {
  return async (input, init) => {
    const body = typeof init?.body === 'string' ? init.body : '';
    const call = agent.current;
    if (!call || init?.method !== 'POST' || !body.includes('"tools/call"')) return fetch(input, init);
    const attempt: AttemptTrace = {
      k: call.attempts.length + 1,
      start: performance.now() - t0,
      end: Number.NaN,
      ok: false,
      down: gate.isDown,
      aborted: false,
      ...(gate.isDown ? { fault: 'connection_refused' as const, transient: true } : {}),
    };
    call.attempts.push(attempt);
    try {
      const response = await fetch(input, init);
      attempt.ok = response.ok;
      return response;
    } finally {
      attempt.end = performance.now() - t0;
    }
  };
}

/** The naive loop around the SDK: every error retried 5 times, 1 s × 2^n. */
async function naiveCall(agent: Agent, window: AbortSignal): Promise<unknown> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await agent.client.callTool(CALL, undefined, requestOptions(agent));
    } catch (error) {
      if (attempt === 5 || window.aborted) throw error;
      await sleep(1000 * 2 ** attempt);
    }
  }
}

const requestOptions = (agent: Agent) =>
  agent.timeoutMs === undefined ? undefined : { timeout: agent.timeoutMs };

/** The agent's loop: call, think, call again, until the window ends. */
async function runAgent(agent: Agent, t0: number, windowMs: number, thinkMs: number, window: AbortSignal) {
  while (performance.now() - t0 < windowMs && !window.aborted) {
    const trace: CallTrace = {
      id: agent.calls.length,
      start: performance.now() - t0,
      end: Number.NaN,
      ok: false,
      endedBy: 'error',
      outcome: '',
      attempts: [],
    };
    agent.current = trace;
    agent.calls.push(trace);
    try {
      await (agent.kind === 'naive'
        ? naiveCall(agent, window)
        : agent.client.callTool(CALL, undefined, requestOptions(agent)));
      trace.ok = true;
      trace.endedBy = 'success';
      trace.outcome = 'success';
    } catch (error) {
      trace.outcome = outcomeOf(error);
    }
    trace.end = performance.now() - t0;
    agent.current = undefined;
    if (window.aborted) return;
    await sleep(thinkMs);
  }
}

async function connectAgent(
  kind: McpAgentKind,
  timeoutMs: number | undefined,
  gate: TcpGate,
  t0: () => number,
): Promise<Agent> {
  const client = new Client({ name: `lone-agent-${kind}`, version: '1.0.0' });
  const agent: Agent = { kind, timeoutMs, client, calls: [], current: undefined };
  const url = new URL(`http://127.0.0.1:${gate.port}/mcp`);
  // t0 is read when a request is made: the clock starts once every agent is connected.
  const transport = new StreamableHTTPClientTransport(url, {
    fetch: (input, init) => countingFetch(agent, gate, t0())(input, init),
  });
  await client.connect(transport);
  if (kind === 'mcp-resilience') agent.client = withResilience(client, { server: 'weather' });
  return agent;
}

/** Runs the four agents (naive and mcp-resilience, each without and with the SDK timeout) against one server. */
export async function runMcpLoneAgent(options: McpLoneAgentOptions = {}): Promise<McpLoneAgentResult> {
  const o = { ...mcpLoneAgentDefaults, ...options };
  const windowMs = o.upMs + o.downMs + o.afterMs;
  const wallStart = performance.now();
  const server = await startChaosHttpServer({ seed: 1 });
  const gate = await TcpGate.open(Number(new URL(server.url).port));
  let t0 = Number.NaN;
  const kinds: [McpAgentKind, number | undefined][] = [
    ['naive', undefined],
    ['naive', o.timeoutMs],
    ['mcp-resilience', undefined],
    ['mcp-resilience', o.timeoutMs],
  ];
  const agents = await Promise.all(kinds.map(([k, t]) => connectAgent(k, t, gate, () => t0)));
  const window = new AbortController();
  try {
    t0 = performance.now();
    const schedule = (async () => {
      await sleep(o.upMs);
      await gate.down();
      await sleep(o.downMs);
      await gate.up();
      await sleep(o.afterMs);
      window.abort();
    })();
    const loops = agents.map((a) => runAgent(a, t0, windowMs, o.thinkMs, window.signal));
    await schedule;
    // The window is over: calls still running are cut by closing their clients.
    await Promise.all(agents.map((a) => a.client.close().catch(() => {})));
    await Promise.all(loops);
  } finally {
    await gate.close();
    await server.close();
  }
  return {
    options: o,
    windowMs,
    agents: agents.map((a) => summarize(a, windowMs)),
    wallMs: performance.now() - wallStart,
  };
}

function summarize(agent: Agent, windowMs: number): McpAgentResult {
  const completed = agent.calls.filter((c) => c.end <= windowMs);
  const outcomes: Record<string, number> = {};
  for (const c of completed) outcomes[c.outcome] = (outcomes[c.outcome] ?? 0) + 1;
  return {
    policy: agent.kind,
    ...(agent.timeoutMs === undefined ? {} : { timeoutMs: agent.timeoutMs }),
    // Calls cut at the window's end are not counted: they neither answered nor failed in it.
    metrics: computeMetrics(completed, { durationMs: windowMs, runs: 1 }),
    outcomes,
    unfinished: agent.calls.length - completed.length,
    requestsWhileDown: agent.calls.reduce((n, c) => n + c.attempts.filter((a) => a.down).length, 0),
  };
}
