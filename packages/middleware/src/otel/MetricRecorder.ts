import { type MeterProvider, metrics } from '@opentelemetry/api';
import { attemptAnnotations } from '../record/attemptAnnotations.js';
import type { Recorder } from '../record/Recorder.js';
import type { AttemptFinishedEvent, ResilienceEvent } from '../record/ResilienceEvent.js';
import { attemptSemconvAttributes } from './attributes.js';
import { BreakerSources } from './BreakerSources.js';
import { createInstruments, type Instruments } from './metricInstruments.js';
import type { ResolvedOtelRecorderOptions } from './OtelRecorderOptions.js';
import { recordAgentLoop } from './recordAgentLoop.js';
import { recordBreakerTransition, recordBreakerWait } from './recordBreakerMetrics.js';
import { recordAttempt, recordCall, recordShadow } from './recordCallMetrics.js';
import { recordFleet } from './recordFleet.js';
import { INSTRUMENTATION_SCOPE_NAME } from './semconv.js';

/** Turns resilience events into the metrics of design §4. */
export class MetricRecorder implements Recorder {
  private provider: MeterProvider | undefined;
  private instruments: Instruments | undefined;
  private broken = false;
  private readonly breakers: BreakerSources;
  /** callId → the classifier's type of the call's last failed attempt: the failure that triggers its next retry. */
  private readonly lastFailure = new Map<number, string>();
  /** The trace-context carrier of each call's running attempt: the key of what the edge annotated. */
  private readonly carriers = new Map<number, object>();

  constructor(
    private readonly options: ResolvedOtelRecorderOptions,
    private readonly report: (error: unknown) => void,
    private readonly onCapReached: () => void,
  ) {
    this.breakers = new BreakerSources(report);
  }

  get openCalls(): number {
    return this.lastFailure.size;
  }

  record(event: ResilienceEvent) {
    if (event.type === 'recorder_attached') {
      this.breakers.add(event.breakers);
      this.getInstruments();
      return;
    }
    if (event.type === 'call_finished') {
      this.lastFailure.delete(event.callId); // first: never leak on a throw below
      this.carriers.delete(event.callId);
    }
    if (event.type === 'attempt_started') {
      this.track(this.carriers, event.callId, event.traceContext);
      return;
    }
    const m = this.getInstruments();
    if (!m) return;
    switch (event.type) {
      case 'attempt_finished':
        return this.attemptFinished(m, event);
      case 'call_finished':
        return recordCall(m, event, this.options.costPerAttempt);
      case 'breaker_wait_finished':
        return recordBreakerWait(m, event);
      case 'breaker_transition':
        return recordBreakerTransition(m, event);
      case 'model_retry_avoided':
      case 'fallback':
        return recordAgentLoop(m.agentLoop, event);
      case 'health_store':
      case 'fleet_decision':
        return recordFleet(m.fleet, event);
      case 'shadow_classified':
        return recordShadow(m, event);
      default:
        return;
    }
  }

  private attemptFinished(m: Instruments, event: AttemptFinishedEvent): void {
    const annotated = attemptSemconvAttributes(attemptAnnotations(this.carriers.get(event.callId)));
    this.carriers.delete(event.callId);
    const failedType = recordAttempt(m, event, annotated, this.lastFailure.get(event.callId));
    if (failedType !== undefined && this.track(this.lastFailure, event.callId, failedType))
      this.onCapReached();
  }

  /** Sets the call's entry last (newest), dropping the oldest beyond `maxOpenCalls`; true when one was dropped. */
  private track<V>(map: Map<number, V>, callId: number, value: V): boolean {
    map.delete(callId);
    map.set(callId, value);
    if (map.size <= this.options.maxOpenCalls) return false;
    map.delete(map.keys().next().value as number);
    return true;
  }

  /** The instruments of the current provider; rebuilt when the global provider is replaced (SDK started later). */
  private getInstruments(): Instruments | undefined {
    if (this.broken) return undefined;
    const current = this.options.meterProvider ?? metrics.getMeterProvider();
    if (this.instruments && current === this.provider) return this.instruments;
    try {
      const created = createInstruments(current.getMeter(INSTRUMENTATION_SCOPE_NAME), this.options);
      created.breakerState.addCallback((result) => this.guard(() => this.breakers.observeStates(result)));
      created.waiting.addCallback((result) => this.guard(() => this.breakers.observeWaiting(result)));
      this.provider = current;
      this.instruments = created;
      return created;
    } catch (error) {
      this.broken = true; // a provider that throws here would throw on every event: stop asking
      throw error;
    }
  }

  private guard(observe: () => void): void {
    try {
      observe();
    } catch (error) {
      this.report(error);
    }
  }
}
