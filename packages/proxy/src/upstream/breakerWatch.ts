import type { BreakerSnapshot, Recorder } from '@mcp-resilience/middleware';
import { ATTR_MCP_RESILIENCE_SERVER } from '@mcp-resilience/middleware/semconv';

/** The pipeline's breakers, read through its recorder, for the parts of the proxy that must respect them. */
export interface BreakerWatch {
  /** The recorder to give the pipeline: it forwards every event to `user`'s. */
  readonly recorder: Recorder;
  /** A breaker of `server` is open or half-open: only the pipeline's own probe may reach it now. */
  readonly guarded: (server: string) => boolean;
}

/** Keeps the `breakers()` the pipeline hands its recorder when it starts (`recorder_attached`). */
export function breakerWatch(user?: Recorder): BreakerWatch {
  let breakers: () => readonly BreakerSnapshot[] = () => [];
  return {
    recorder: {
      record(event) {
        if (event.type === 'recorder_attached') breakers = event.breakers;
        user?.record(event);
      },
    },
    guarded: (server) =>
      breakers().some(
        (b) => b.state !== 'closed' && (b.attributes[ATTR_MCP_RESILIENCE_SERVER] ?? b.endpoint) === server,
      ),
  };
}
