import type { Recorder } from './Recorder.js';

/** The default recorder: drops every event. */
export const noopRecorder: Recorder = { record() {} };
