/*
 * The agent layer: a scripted ReAct model that re-calls a failed tool as real agents do, over a tool whose server
 * fails in a known way, under four tool-layer policies. Counts the LLM calls and tool requests wasted (those that
 * could not change the outcome), in LLM calls and in the user's `costPerAttempt`. Virtual time: nothing sleeps.
 */
import type { Clock } from '@mcp-resilience/middleware';
import { createFakeClock, type FakeClock, seededRandom } from '@mcp-resilience/middleware/testing';
import { createToolGuard } from '@mcp-resilience/middleware/tools';

/** How the tool's server fails, per task. */
export type AgentFault =
  /** The arguments are wrong: every request fails with JSON-RPC -32602 (the same call cannot succeed). */
  | 'invalid_arguments'
  /** One 503, then it works. */
  | 'blip'
  /** The server is down for the whole task: every request fails with 503. */
  | 'outage';

/** How the model reacts to a tool error. */
export type ModelBehaviour =
  /** Calls the same tool with the same arguments again, up to 3 calls in all, whatever the error says. */
  | 'stubborn'
  /**
   * As `stubborn`, but stops repeating the identical call when the tool output says, in any policy's wording, that the
   * request is invalid or the failure permanent (see {@link saysRepeatCannotHelp}); keeps repeating it after an error
   * that looks transient.
   */
  | 'reads-errors';

export interface AgentLayerCell {
  readonly fault: AgentFault;
  readonly model: ModelBehaviour;
  readonly policy: string;
  readonly tasks: number;
  readonly llmCalls: number;
  readonly wastedLlmCalls: number;
  readonly toolRequests: number;
  readonly wastedToolRequests: number;
  /** Virtual seconds per task (LLM calls 1 s, requests 50 ms, every backoff wait). */
  readonly secondsPerTask: number;
  /** Wasted tool requests × costPerAttempt. */
  readonly wastedCost: number;
  /** Wasted LLM calls × costPerLlmCall. */
  readonly wastedLlmCost: number;
}

const LLM_CALL_MS = 1_000;
const REQUEST_MS = 50;
/** Calls of the same tool a model makes at most before it answers without it. */
const MAX_MODEL_CALLS = 3;

class McpError extends Error {
  override readonly name = 'McpError';
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(`MCP error ${code}: ${message}`);
  }
}
const unavailable = () => Object.assign(new Error('HTTP 503 Service Unavailable'), { status: 503 });

/** The tool's server: answers or fails per the fault, counting requests, on the virtual clock. */
function toolServer(fault: AgentFault, clock: Clock) {
  let requests = 0;
  let failed = 0;
  return {
    get requests() {
      return requests;
    },
    get failed() {
      return failed;
    },
    async call(): Promise<string> {
      requests++;
      await clock.sleep(REQUEST_MS);
      const fails =
        fault === 'invalid_arguments' || fault === 'outage' || (fault === 'blip' && requests === 1);
      if (!fails) return 'Paris: 17 °C, partly cloudy';
      failed++;
      throw fault === 'invalid_arguments'
        ? new McpError(-32602, 'Invalid params: unknown city')
        : unavailable();
    },
  };
}

/** A tool layer: runs one tool call, returns what the model reads. */
interface ToolLayer {
  run(call: () => Promise<string>, args: unknown): Promise<{ ok: boolean; output: string }>;
}

export interface AgentPolicy {
  readonly key: string;
  readonly name: string;
  readonly description: string;
  create(clock: Clock): ToolLayer;
}

export const AGENT_POLICIES: readonly AgentPolicy[] = [
  {
    key: 'naive',
    name: 'naive',
    description: 'the tool retries every error 5 times, 1 s × 2^n; the model reads `Error: <message>`',
    create: (clock) => ({
      async run(call) {
        for (let attempt = 0; ; attempt++) {
          try {
            return { ok: true, output: await call() };
          } catch (error) {
            if (attempt === 5) return { ok: false, output: `Error: ${(error as Error).message}` };
            await clock.sleep(1000 * 2 ** attempt);
          }
        }
      },
    }),
  },
  {
    key: 'langgraph',
    name: 'LangGraph-style',
    description:
      'a tool node with LangGraph’s default RetryPolicy (3 attempts, 0.5 s × 2^n, retries all but HTTP 400–409 and aborts, so a JSON-RPC -32602 is retried); the model reads `Error: <message>\\n Please fix your mistakes.`',
    create: (clock) => ({
      async run(call) {
        for (let attempt = 1; ; attempt++) {
          try {
            return { ok: true, output: await call() };
          } catch (error) {
            const status = (error as { status?: number }).status;
            const retryOn = !(
              status !== undefined && [400, 401, 402, 403, 404, 405, 406, 407, 409].includes(status)
            );
            if (attempt >= 3 || !retryOn) {
              return { ok: false, output: `Error: ${(error as Error).message}\n Please fix your mistakes.` };
            }
            await clock.sleep(500 * 2 ** (attempt - 1));
          }
        }
      },
    }),
  },
  {
    key: 'ai-sdk',
    name: 'AI SDK-style',
    description:
      'no tool retries (the AI SDK retries model calls, not tool executions); the model reads the error message as a tool error',
    create: () => ({
      async run(call) {
        try {
          return { ok: true, output: await call() };
        } catch (error) {
          return { ok: false, output: (error as Error).message };
        }
      },
    }),
  },
  {
    key: 'mcp-resilience',
    name: 'mcp-resilience',
    description:
      'the tool guard of the adapters (defaults: 3 attempts for retryable failures of a tool safe to repeat, breaker answering at once when open, budget), the negative cache answering the model’s identical repeats of a non-retryable failure without a request; the model reads the sentence for the outcome',
    create: (clock) => {
      const guard = createToolGuard({ server: 'weather', clock, idempotent: true });
      return {
        async run(call, args) {
          const result = await guard('get_weather', args, () => call());
          return result.ok ? { ok: true, output: result.value } : { ok: false, output: result.text };
        },
      };
    },
  },
];

/** Wording of a transient failure: repeating the same call later may work. */
const TRANSIENT =
  /\b(?:HTTP )?(?:408|425|429|500|502|503|504)\b|timed? ?out|timeout|unavailable|temporar|try again|rate.?limit|overloaded|ECONNRE(?:SET|FUSED)|ETIMEDOUT/i;
/** Wording of an invalid request or a permanent failure: the same call will fail the same way. */
const PERMANENT =
  /-32602|invalid (?:params|arguments?|request)|\bHTTP (?:400|401|403|404)\b|\b(?:400 Bad Request|401 Unauthorized|403 Forbidden|404 Not Found)\b|not found|unknown tool|cannot succeed/i;
/** LangGraph ToolNode's suffix on every tool error it hands the model (whatever the error). */
const FIX_YOUR_MISTAKES = /Please fix your mistakes/i;

/**
 * What the `reads-errors` model concludes from a failed tool call's output: `true` when it says, in any policy's
 * wording, that repeating the identical call cannot help, so the model stops repeating it. In order:
 * 1. an invalid request or a permanent failure (JSON-RPC -32602, "Invalid params"/"Invalid arguments", HTTP 400, 401,
 *    403, 404 and their texts, "not found", "unknown city", mcp-resilience's "cannot succeed") → stop;
 * 2. a transient failure (HTTP 408/425/429/5xx, "unavailable", timeouts, "temporarily", "try again", rate limits)
 *    → repeat;
 * 3. LangGraph ToolNode's "Please fix your mistakes" with nothing transient in the error → stop (the model obeys it;
 *    ToolNode appends it to every error, so a 503 it wraps is still read as transient by rule 2);
 * 4. anything else → repeat (the model cannot tell, and tries again as the stubborn one does).
 */
export function saysRepeatCannotHelp(output: string): boolean {
  if (PERMANENT.test(output)) return true;
  if (TRANSIENT.test(output)) return false;
  return FIX_YOUR_MISTAKES.test(output);
}

/** One task: the model asks for the weather, and repeats the call after errors as its behaviour says. */
async function runTask(
  fault: AgentFault,
  model: ModelBehaviour,
  clock: Clock,
  layer: ToolLayer,
  onToolError?: (output: string) => void,
) {
  const server = toolServer(fault, clock);
  let llmCalls = 0;
  const args = { city: fault === 'invalid_arguments' ? 'Pariss' : 'Paris' };
  for (let calls = 0; ; ) {
    llmCalls++;
    await clock.sleep(LLM_CALL_MS);
    if (calls === MAX_MODEL_CALLS) break; // answers without the tool
    calls++;
    const { ok, output } = await layer.run(() => server.call(), args);
    if (ok) {
      llmCalls++; // the final answer
      await clock.sleep(LLM_CALL_MS);
      break;
    }
    onToolError?.(output);
    if (model === 'reads-errors' && saysRepeatCannotHelp(output)) {
      llmCalls++;
      await clock.sleep(LLM_CALL_MS);
      break;
    }
  }
  // The least a task needs: one call and one answer; one request (it fails or succeeds), one more after a blip.
  const neededRequests = fault === 'blip' ? 2 : 1;
  return {
    llmCalls,
    wastedLlmCalls: llmCalls - 2,
    requests: server.requests,
    wastedRequests: Math.max(0, server.requests - neededRequests),
  };
}

/** Runs `task` on the virtual clock: fires its timers one at a time until it settles. */
async function drive<T>(clock: FakeClock, task: Promise<T>): Promise<T> {
  let done = false;
  const settled = task.finally(() => {
    done = true;
  });
  for (let fired = 0; !done; fired++) {
    if (fired > 100_000) throw new Error('agent layer: a task did not settle');
    await clock.runAll(1);
  }
  return settled;
}

/** Runs every fault × model × policy over `tasks` tasks (each policy keeps its state across the tasks of a cell). */
export async function runAgentLayer(
  options: {
    tasks?: number;
    costPerAttempt?: number;
    /** The price of one LLM call, in the unit of `costPerAttempt` (default 1). */
    costPerLlmCall?: number;
    seed?: number;
    /** Sees every tool output the model reads after a failed call (the texts `saysRepeatCannotHelp` judges). */
    onToolError?: (error: {
      fault: AgentFault;
      model: ModelBehaviour;
      policy: string;
      output: string;
    }) => void;
  } = {},
): Promise<AgentLayerCell[]> {
  const tasks = options.tasks ?? 20;
  const costPerAttempt = options.costPerAttempt ?? 1;
  const costPerLlmCall = options.costPerLlmCall ?? 1;
  const onToolError = options.onToolError;
  const cells: AgentLayerCell[] = [];
  for (const fault of ['invalid_arguments', 'blip', 'outage'] as const) {
    for (const model of ['stubborn', 'reads-errors'] as const) {
      for (const policy of AGENT_POLICIES) {
        const clock = createFakeClock(0);
        clock.setRandom(Array.from({ length: 1_000 }, seededRandom(options.seed ?? 1)));
        const layer = policy.create(clock);
        let llmCalls = 0;
        let wastedLlmCalls = 0;
        let toolRequests = 0;
        let wastedToolRequests = 0;
        for (let t = 0; t < tasks; t++) {
          const r = await drive(
            clock,
            runTask(
              fault,
              model,
              clock,
              layer,
              onToolError && ((output) => onToolError({ fault, model, policy: policy.key, output })),
            ),
          );
          llmCalls += r.llmCalls;
          wastedLlmCalls += r.wastedLlmCalls;
          toolRequests += r.requests;
          wastedToolRequests += r.wastedRequests;
          await clock.advance(60_000); // the next task a minute later
        }
        cells.push({
          fault,
          model,
          policy: policy.key,
          tasks,
          llmCalls,
          wastedLlmCalls,
          toolRequests,
          wastedToolRequests,
          secondsPerTask: (clock.now() - tasks * 60_000) / tasks / 1000,
          wastedCost: wastedToolRequests * costPerAttempt,
          wastedLlmCost: wastedLlmCalls * costPerLlmCall,
        });
      }
    }
  }
  return cells;
}

/** The agent-layer section of docs/benchmarks.md. */
export function renderAgentLayer(
  cells: readonly AgentLayerCell[],
  costPerAttempt = 1,
  costPerLlmCall = 1,
): string {
  const lines = [
    '## The agent layer: the model’s own retries',
    '',
    'A scripted ReAct model asks a weather tool; after a tool error it calls the same tool with the same arguments again (at most 3 calls, then it answers without the tool). `stubborn` repeats whatever the error says. `reads-errors` reads the error in whatever words the policy gives it, and stops repeating the identical call when the error says the request is invalid or the failure permanent: JSON-RPC -32602, “Invalid params”/“Invalid arguments”, HTTP 400/401/403/404 and their texts, “not found”, “cannot succeed”, or LangGraph ToolNode’s “Please fix your mistakes” with no transient sign in the error; it keeps repeating after a transient-looking error (HTTP 408/429/5xx, “unavailable”, timeouts, “temporary”, “try again”, rate limits), and after anything it cannot tell. The same rule (`saysRepeatCannotHelp` in packages/bench/src/agentLayer.ts, tested on every policy’s error texts) judges every policy, so in this benchmark every policy’s wording of the invalid-arguments error stops it and none of the outage texts do. Each LLM call counts 1 s, each request 50 ms (virtual time). Wasted: LLM calls beyond the 2 a task needs (call, answer) and requests beyond the 1 it needs (2 after a blip); request cost = wasted requests × `costPerAttempt` (' +
      `${costPerAttempt}` +
      ' here), LLM cost = wasted LLM calls × `costPerLlmCall` (' +
      `${costPerLlmCall}` +
      ' here, in the same unit; an LLM call usually costs far more than a tool request, so scale this column by your own ratio). Per cell: ' +
      `${cells[0]?.tasks ?? 0} tasks.`,
    '',
    ...AGENT_POLICIES.map((p) => `- **${p.name}**: ${p.description}.`),
    '',
    '| fault | model | policy | LLM calls | wasted LLM calls | tool requests | wasted requests | wasted request cost | wasted LLM cost | s per task |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---:|',
    ...cells.map(
      (c) =>
        `| ${c.fault} | ${c.model} | ${AGENT_POLICIES.find((p) => p.key === c.policy)?.name ?? c.policy} | ${c.llmCalls} | ${c.wastedLlmCalls} | ${c.toolRequests} | ${c.wastedToolRequests} | ${c.wastedCost} | ${c.wastedLlmCost} | ${c.secondsPerTask.toFixed(1)} |`,
    ),
    '',
  ];
  return lines.join('\n');
}
