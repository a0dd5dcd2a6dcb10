import type { Recorder } from '@mcp-resilience/middleware';

/**
 * The naive group has no circuit breaker (its thresholds can never be reached), so it must not report one:
 * its recorder drops the breaker source the pipeline attaches (the state gauge would show these processes as
 * breaker instances, "Closed 4 / Open 4", beside the resilient group's real breakers). Every other event passes.
 */
export function withoutBreakerState(recorder: Recorder): Recorder {
  return {
    record(event) {
      if (event.type === 'recorder_attached') return;
      recorder.record(event);
    },
  };
}
