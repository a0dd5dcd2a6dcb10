import type { Classification } from '../classify/Classification.js';
import type { ClassificationRule, FunctionRule } from '../classify/ClassificationRule.js';
import type { ClassifyContext } from '../classify/ClassifyContext.js';
import { classifyError } from '../classify/classifyError.js';
import type { Recorder } from '../record/Recorder.js';

export interface Shadow {
  /** Goes first in the instance's rules: classifies with the shadow's rules, keeps the verdict, decides nothing. */
  readonly rule: FunctionRule;
  /** Wraps the instance's recorder: after a failed attempt's `attempt_finished`, sends `shadow_classified`. */
  wrap(recorder: Recorder): Recorder;
}

/**
 * A shadow classifier for one resilience instance. Its rule runs only when an attempt failed (rules are asked
 * about failures only), as the first rule, so it sees every failure the loop classifies; the loop emits that
 * attempt's `attempt_finished` synchronously right after, and the wrapped recorder pairs the two. Any other event
 * drops a verdict that was not paired (a failure classified outside an attempt, such as an abort while waiting).
 *
 * @param skip how many of the instance's rules are replaced by `rules` (the shadow rule and the variant's own):
 *   the shadow keeps the rules after them (the shared ones and the call's, such as the MCP edge's).
 */
export function createShadow(rules: readonly ClassificationRule[], skip: number): Shadow {
  let pending: Classification | undefined;
  const rule: FunctionRule = (error: unknown, context: ClassifyContext) => {
    pending = undefined;
    try {
      const rest = Array.isArray(context.rules) ? context.rules.slice(skip) : [];
      pending = classifyError(error, { ...context, rules: [...rules, ...rest] });
    } catch {
      // a shadow never breaks the call
    }
    return undefined;
  };
  const wrap = (recorder: Recorder): Recorder => ({
    record(event) {
      const shadow = pending;
      pending = undefined;
      recorder.record(event);
      if (shadow === undefined) return;
      if (event.type !== 'attempt_finished' || event.classification === undefined) return;
      const c = event.classification;
      recorder.record({
        type: 'shadow_classified',
        callId: event.callId,
        endpoint: event.endpoint,
        operation: event.operation,
        attributes: event.attributes,
        time: event.time,
        attempt: event.attempt,
        classification: c,
        shadow,
        agrees: shadow.class === c.class && shadow.type === c.type,
      });
    },
  });
  return { rule, wrap };
}
