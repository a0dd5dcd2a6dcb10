import type { Attributes } from '@opentelemetry/api';
import type { Classification } from '../classify/Classification.js';
import { errorAttributes } from './attributes.js';
import type { ResolvedOtelRecorderOptions } from './OtelRecorderOptions.js';
import { redactMessage } from './redactMessage.js';
import {
  ATTR_MCP_RESILIENCE_CLASSIFICATION_SOURCE,
  ATTR_MCP_RESILIENCE_DECISION,
  ATTR_MCP_RESILIENCE_DELAY_MS,
  ATTR_MCP_RESILIENCE_ERROR_MESSAGE,
  ATTR_MCP_RESILIENCE_EXECUTION,
  ATTR_MCP_RESILIENCE_GIVE_UP_REASON,
  ATTR_MCP_RESILIENCE_HEALTH_NEUTRAL,
  ATTR_MCP_RESILIENCE_RETRY_AFTER_MS,
  DECISION_VALUES,
  OTHER_VALUE,
} from './semconv.js';

type MessageOptions = Pick<ResolvedOtelRecorderOptions, 'captureMessages' | 'messageMaxLength' | 'redact'>;

/** The failure's message, redacted and length-capped; undefined when message capture is off or there is none. */
export function failureMessage(options: MessageOptions, c: Classification | undefined): string | undefined {
  return options.captureMessages && typeof c?.message === 'string' && c.message !== ''
    ? redactMessage(c.message, options.messageMaxLength, options.redact)
    : undefined;
}

/** The attributes of a `mcp.resilience.classification` event: the classification and the decision taken. */
export function classificationAttributes(
  options: MessageOptions,
  c: Classification,
  decision: { readonly decision: string; readonly delayMs: number; readonly giveUpReason?: string },
): Attributes {
  const attributes: Attributes = {
    ...errorAttributes(c),
    [ATTR_MCP_RESILIENCE_DECISION]: (DECISION_VALUES as readonly string[]).includes(decision.decision)
      ? decision.decision
      : OTHER_VALUE,
    [ATTR_MCP_RESILIENCE_DELAY_MS]: decision.delayMs,
    [ATTR_MCP_RESILIENCE_EXECUTION]: String(c.execution),
    [ATTR_MCP_RESILIENCE_CLASSIFICATION_SOURCE]: String(c.source),
    [ATTR_MCP_RESILIENCE_HEALTH_NEUTRAL]: c.healthNeutral === true,
  };
  if (decision.giveUpReason !== undefined)
    attributes[ATTR_MCP_RESILIENCE_GIVE_UP_REASON] = decision.giveUpReason;
  if (typeof c.retryAfterMs === 'number') attributes[ATTR_MCP_RESILIENCE_RETRY_AFTER_MS] = c.retryAfterMs;
  const text = failureMessage(options, c);
  if (text !== undefined) attributes[ATTR_MCP_RESILIENCE_ERROR_MESSAGE] = text;
  return attributes;
}
