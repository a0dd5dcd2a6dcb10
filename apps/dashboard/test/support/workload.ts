import { createResilience, type Recorder, type ResilienceEvent } from '@mcp-resilience/middleware';
import {
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_RESILIENCE_SERVER,
} from '@mcp-resilience/middleware/semconv';
import { createMemoryRecorder } from '@mcp-resilience/middleware/testing';

/** What a scripted workload did, counted from the middleware's own events (the ground truth). */
export interface GroundTruth {
  calls: { total: number; success: number; failure: number; rejected: number };
  retries: { total: number; successful: number };
  errorsByClass: { retryable: number; non_retryable: number; conditional: number };
  errorsByType: Record<string, number>;
  wastedRetries: number;
  wastedTimeMs: number;
  nonRetryableDurationsMs: number[];
  breakerOpened: string[];
}

export function emptyTruth(): GroundTruth {
  return {
    calls: { total: 0, success: 0, failure: 0, rejected: 0 },
    retries: { total: 0, successful: 0 },
    errorsByClass: { retryable: 0, non_retryable: 0, conditional: 0 },
    errorsByType: {},
    wastedRetries: 0,
    wastedTimeMs: 0,
    nonRetryableDurationsMs: [],
    breakerOpened: [],
  };
}

/** A recorder that forwards to another and counts the ground truth from the raw events. */
export function countingRecorder(inner: Recorder, truth: GroundTruth): Recorder {
  const memory = createMemoryRecorder();
  return {
    record(event: ResilienceEvent) {
      inner.record(event);
      memory.record(event);
      if (event.type === 'attempt_finished') {
        if (event.attempt >= 2) {
          truth.retries.total++;
          if (event.outcome === 'success') truth.retries.successful++;
        }
        if (event.outcome !== 'success' && event.classification) {
          const c = event.classification;
          truth.errorsByClass[c.class]++;
          truth.errorsByType[c.type] = (truth.errorsByType[c.type] ?? 0) + 1;
        }
      } else if (event.type === 'call_finished') {
        truth.calls.total++;
        truth.calls[event.outcome]++;
        truth.wastedRetries += event.wastedRetries;
        truth.wastedTimeMs += event.wastedTimeMs;
        if (event.outcome === 'failure' && event.classification?.class === 'non_retryable') {
          truth.nonRetryableDurationsMs.push(event.durationMs);
        }
      } else if (event.type === 'breaker_transition' && event.to === 'open') {
        truth.breakerOpened.push(event.endpoint);
      }
    },
  };
}

const httpError = (status: number) => Object.assign(new Error(`HTTP ${status}`), { status });

export type Step = 'ok' | 503 | 400 | 429 | 'ECONNREFUSED';

function fail(step: Exclude<Step, 'ok'>): never {
  if (step === 'ECONNREFUSED')
    throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
  throw httpError(step);
}

export interface ScriptedCall {
  readonly server: string;
  readonly tool: string;
  /** What each attempt does, in order; the last step repeats. */
  readonly steps: readonly Step[];
}

/** The options `runScript` uses: fast backoff, no breaker trips, no budget refusals (override as needed). */
export const SCRIPT_OPTIONS = {
  maxAttempts: 3,
  backoffBaseMs: 1,
  backoffMaxMs: 5,
  jitter: 'none',
  budgetRatio: 1,
  budgetMinRetriesPerSecond: 1000,
  retryAfterMaxMs: 5,
  breakerConsecutiveFailures: 1000,
  breakerMinimumCalls: 100_000,
} as const;

type Resilience = ReturnType<typeof createResilience>;

/** Runs one scripted call through a resilience instance (failures are swallowed: the telemetry is the point). */
export async function executeScripted(resilience: Resilience, call: ScriptedCall): Promise<void> {
  let i = 0;
  await resilience
    .execute(
      () => {
        const step = call.steps[Math.min(i, call.steps.length - 1)]!;
        i++;
        if (step === 'ok') return 'ok';
        return fail(step);
      },
      {
        endpoint: call.server,
        operation: 'tools/call',
        attributes: {
          [ATTR_MCP_RESILIENCE_SERVER]: call.server,
          [ATTR_MCP_METHOD_NAME]: 'tools/call',
          [ATTR_GEN_AI_TOOL_NAME]: call.tool,
        },
      },
    )
    .catch(() => undefined);
}

/** Runs scripted calls through `createResilience` with the given recorder (fast backoff, real clock). */
export async function runScript(
  recorder: Recorder,
  calls: readonly ScriptedCall[],
  options: Record<string, unknown> = {},
) {
  const resilience = createResilience({ recorder, ...SCRIPT_OPTIONS, ...options });
  for (const call of calls) await executeScripted(resilience, call);
  return resilience;
}

/** A workload with every kind of outcome: successes, retried successes, exhausted retries, non-retryable failures. */
export function standardScript(server = 'weather'): ScriptedCall[] {
  const calls: ScriptedCall[] = [];
  for (let i = 0; i < 10; i++) calls.push({ server, tool: 'get_forecast', steps: ['ok'] });
  for (let i = 0; i < 6; i++) calls.push({ server, tool: 'get_forecast', steps: [503, 'ok'] });
  for (let i = 0; i < 3; i++) calls.push({ server, tool: 'get_forecast', steps: [503] });
  for (let i = 0; i < 4; i++) calls.push({ server, tool: 'get_alerts', steps: [400] });
  for (let i = 0; i < 2; i++) calls.push({ server, tool: 'get_alerts', steps: ['ECONNREFUSED', 'ok'] });
  return calls;
}
