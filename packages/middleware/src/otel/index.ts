export { createOtelRecorder } from './createOtelRecorder.js';
export type { OtelRecorderOptions } from './OtelRecorderOptions.js';
export { otelRecorderDefaults } from './OtelRecorderOptions.js';
export { redactMessage } from './redactMessage.js';
