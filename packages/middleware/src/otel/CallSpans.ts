import type { Attributes, Context, Span } from '@opentelemetry/api';
import { toHrTime } from './toHrTime.js';

export interface AttemptSpan {
  readonly span: Span;
  /** The attempt's trace-context carrier: the key of what the edge annotated (`attemptAnnotations`). */
  readonly carrier: object;
  /** Set when the attempt failed: the span stays open for its classification event, then ends at this time. */
  endTime?: number;
}

export interface CallSpan {
  readonly span: Span;
  /** The caller's context with the call span set: the parent of the attempt spans. */
  readonly context: Context;
  readonly attributes: Attributes;
  readonly attempts: Map<number, AttemptSpan>;
  attemptsMade: number;
  /** Whether the call met its breaker's gate (waited, or was shed). */
  gated: boolean;
  /**
   * The last failed attempt's classifier type and `error.type` (OTel meaning): the call span's `error.type` when
   * the call ends with that failure.
   */
  lastFailure?: { readonly type: string; readonly errorType: string };
}

/** The spans of the calls open now, at most `maxOpenCalls`: beyond, the oldest call's spans are ended early. */
export class CallSpans {
  private readonly calls = new Map<number, CallSpan>();

  constructor(
    private readonly maxOpenCalls: number,
    private readonly onCapReached: () => void,
  ) {}

  get size(): number {
    return this.calls.size;
  }

  get(callId: number | undefined): CallSpan | undefined {
    return callId === undefined ? undefined : this.calls.get(callId);
  }

  has(callId: number): boolean {
    return this.calls.has(callId);
  }

  /** Removes the call and returns it (undefined when it is not open). */
  take(callId: number): CallSpan | undefined {
    const call = this.calls.get(callId);
    this.calls.delete(callId);
    return call;
  }

  /** Makes room for one more call at `time`, ending the oldest calls' spans when the cap is reached. */
  makeRoom(time: number): void {
    while (this.calls.size >= this.maxOpenCalls) {
      const [oldestId, oldest] = this.calls.entries().next().value as [number, CallSpan];
      this.calls.delete(oldestId);
      this.onCapReached();
      try {
        endAttempts(oldest, time);
      } finally {
        oldest.span.end(toHrTime(time));
      }
    }
  }

  add(callId: number, call: CallSpan): void {
    this.calls.set(callId, call);
  }
}

/** Ends every attempt span still open (a failed attempt whose classification never came). */
export function endAttempts(call: CallSpan, time: number): void {
  const open = [...call.attempts.values()];
  call.attempts.clear(); // first: a span processor that throws in `end` must not leave ended spans behind
  let failure: unknown;
  for (const attempt of open) {
    try {
      attempt.span.end(toHrTime(attempt.endTime ?? time));
    } catch (error) {
      failure ??= error;
    }
  }
  if (failure !== undefined) throw failure;
}
