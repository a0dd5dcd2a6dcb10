import type { ShadowClassifiedEvent } from '../record/ResilienceEvent.js';
import { errorClassValue, errorTypeValue } from './attributes.js';
import type { CallSpan } from './CallSpans.js';
import {
  ATTR_MCP_RESILIENCE_SHADOW_AGREES,
  ATTR_MCP_RESILIENCE_SHADOW_CLASS,
  ATTR_MCP_RESILIENCE_SHADOW_SOURCE,
  ATTR_MCP_RESILIENCE_SHADOW_TYPE,
  EVENT_MCP_RESILIENCE_SHADOW_CLASSIFICATION,
} from './semconv.js';
import { toHrTime } from './toHrTime.js';

/** The shadow classifier's verdict, as an event on the failed attempt's span (still open until classified). */
export function shadowSpanEvent(call: CallSpan | undefined, event: ShadowClassifiedEvent): void {
  const span = call?.attempts.get(event.attempt)?.span ?? call?.span;
  span?.addEvent(
    EVENT_MCP_RESILIENCE_SHADOW_CLASSIFICATION,
    {
      [ATTR_MCP_RESILIENCE_SHADOW_CLASS]: errorClassValue(event.shadow?.class),
      [ATTR_MCP_RESILIENCE_SHADOW_TYPE]: errorTypeValue(event.shadow?.type),
      [ATTR_MCP_RESILIENCE_SHADOW_SOURCE]: String(event.shadow?.source ?? ''),
      [ATTR_MCP_RESILIENCE_SHADOW_AGREES]: event.agrees === true,
    },
    toHrTime(event.time),
  );
}
