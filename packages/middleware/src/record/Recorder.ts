import type { ResilienceEvent } from './ResilienceEvent.js';

/**
 * The one telemetry port. The core calls `record` synchronously with plain data; a recorder must not block.
 * A recorder that throws is contained: the call goes on unchanged.
 */
export interface Recorder {
  record(event: ResilienceEvent): void;
}
