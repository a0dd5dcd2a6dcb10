import type { Recorder } from './Recorder.js';
import type { ResilienceEvent, ResilienceEventType } from './ResilienceEvent.js';

export interface MemoryRecorder extends Recorder {
  /** Every event recorded so far, oldest first (up to `limit`). */
  readonly events: readonly ResilienceEvent[];
  /** The events of one type. */
  ofType<T extends ResilienceEventType>(type: T): Extract<ResilienceEvent, { type: T }>[];
  clear(): void;
}

/** Keeps events in memory, for tests and simulations. Oldest events are dropped beyond `limit`. */
export function createMemoryRecorder(options: { limit?: number } = {}): MemoryRecorder {
  const limit = options.limit ?? 100_000;
  const events: ResilienceEvent[] = [];
  return {
    events,
    record(event) {
      events.push(event);
      if (events.length > limit) events.splice(0, events.length - limit);
    },
    ofType(type) {
      return events.filter((e) => e.type === type) as never;
    },
    clear() {
      events.length = 0;
    },
  };
}
