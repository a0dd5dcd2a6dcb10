import { type ClassificationRule, createResilience, type Recorder } from '@mcp-resilience/middleware';
import {
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_MCP_METHOD_NAME,
  ATTR_MCP_RESILIENCE_SERVER,
  ATTR_MCP_RESILIENCE_VARIANT,
} from '@mcp-resilience/middleware/semconv';
import { seededRandom } from '@mcp-resilience/middleware/testing';
import { SCRIPT_OPTIONS } from './workload';

/*
 * A canary workload through the real middleware: `control` (the built-in rules) and `candidate` (a rule that a
 * 503 saying "not found" is final), split by conversation, and a shadow classifier with the candidate's rule.
 * Control retries the "not found" 503s in vain; the candidate does not: same success rate, better efficiency.
 */

export const NOT_FOUND_RULE: ClassificationRule = {
  name: 'not-found-503',
  message: /not found/,
  classify: { class: 'non_retryable', type: 'not_found' },
};

const error = (status: number, message: string) => Object.assign(new Error(message), { status });

export interface CanaryTruth {
  readonly calls: Record<string, { total: number; success: number; failure: number; rejected: number }>;
  readonly retries: Record<string, { total: number; successful: number }>;
  /** Shadow disagreements by `variant|class|type|shadowClass|shadowType`. */
  readonly disagreements: Record<string, number>;
}

/** A recorder that forwards, and counts the truth per variant from the middleware's own events. */
export function canaryRecorder(inner: Recorder): { recorder: Recorder; truth: CanaryTruth } {
  const truth: CanaryTruth = { calls: {}, retries: {}, disagreements: {} };
  return {
    truth,
    recorder: {
      record(event) {
        inner.record(event);
        if (event.type === 'recorder_attached' || event.type === 'breaker_transition') return;
        if (event.type === 'health_store') return; // no call, no variant
        const variant = event.attributes[ATTR_MCP_RESILIENCE_VARIANT] ?? '';
        if (event.type === 'call_finished') {
          truth.calls[variant] ??= { total: 0, success: 0, failure: 0, rejected: 0 };
          const c = truth.calls[variant];
          c.total++;
          c[event.outcome]++;
        } else if (event.type === 'attempt_finished' && event.attempt >= 2) {
          truth.retries[variant] ??= { total: 0, successful: 0 };
          const r = truth.retries[variant];
          r.total++;
          if (event.outcome === 'success') r.successful++;
        } else if (event.type === 'shadow_classified' && !event.agrees) {
          const k = [
            variant,
            event.classification.class,
            event.classification.type,
            event.shadow.class,
            event.shadow.type,
          ].join('|');
          truth.disagreements[k] = (truth.disagreements[k] ?? 0) + 1;
        }
      },
    },
  };
}

/** The canary's candidate: the "not found" rule (better efficiency), unless given. */
export const GOOD_CANDIDATE = { rules: [NOT_FOUND_RULE] };
/** A candidate that does not retry at all: its success rate drops. */
export const BAD_CANDIDATE = { maxAttempts: 1 };

/** Runs `calls` canary calls (seeded: the same calls every run). */
export async function runCanary(
  recorder: Recorder,
  calls: number,
  options: { seed?: number; candidate?: Record<string, unknown> } = {},
) {
  const resilience = createResilience({
    recorder,
    ...SCRIPT_OPTIONS,
    variants: { control: {}, candidate: options.candidate ?? GOOD_CANDIDATE },
    split: { control: 0.7, candidate: 0.3 },
    variantKey: (call) => call.attributes?.['conversation.id'],
    shadowRules: [NOT_FOUND_RULE],
  });
  const random = seededRandom(options.seed ?? 7);
  for (let i = 0; i < calls; i++) {
    const u = random();
    // 70% succeed, 15% fail once with a 503 then succeed, 10% are a 503 "not found" every time, 5% a 400.
    const script: Array<Error | 'ok'> =
      u < 0.7
        ? ['ok']
        : u < 0.85
          ? [error(503, 'upstream unavailable'), 'ok']
          : u < 0.95
            ? [error(503, 'city not found')]
            : [error(400, 'invalid arguments')];
    let attempt = 0;
    await resilience
      .execute(
        () => {
          const step = script[Math.min(attempt++, script.length - 1)];
          if (step === 'ok') return 'ok';
          throw step;
        },
        {
          endpoint: 'weather',
          operation: 'tools/call',
          attributes: {
            [ATTR_MCP_RESILIENCE_SERVER]: 'weather',
            [ATTR_MCP_METHOD_NAME]: 'tools/call',
            [ATTR_GEN_AI_TOOL_NAME]: 'get_forecast',
            'conversation.id': `conv-${i % 97}`,
          },
        },
      )
      .catch(() => undefined);
  }
  return resilience;
}
