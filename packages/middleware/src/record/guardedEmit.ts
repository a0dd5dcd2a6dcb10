import type { Recorder } from './Recorder.js';
import type { ResilienceEvent } from './ResilienceEvent.js';

/** Records an event without ever breaking the call: a recorder that throws is ignored. */
export function guardedEmit(recorder: Recorder): (event: ResilienceEvent) => void {
  return (event) => {
    try {
      recorder.record(event);
    } catch {
      // telemetry never breaks the call
    }
  };
}
