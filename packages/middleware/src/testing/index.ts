export type { MemoryRecorder } from '../record/createMemoryRecorder.js';
export { createMemoryRecorder } from '../record/createMemoryRecorder.js';
export type { FakeClock } from './createFakeClock.js';
export { createFakeClock } from './createFakeClock.js';
export { seededRandom } from './seededRandom.js';
export { serveFetch } from './serveFetch.js';
