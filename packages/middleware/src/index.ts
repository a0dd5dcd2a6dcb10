export type { Clock } from './Clock.js';
export { MAX_TIMER_MS, realClock } from './Clock.js';
export type { AttemptContext, CallOptions, Recovery } from './call/CallOptions.js';
export type { Classification, ErrorClass, ErrorType, Execution } from './classify/Classification.js';
export { ERROR_CLASSES, ERROR_TYPES, EXECUTION_STATES } from './classify/Classification.js';
export type {
  ClassificationRule,
  DeclarativeRule,
  FunctionRule,
  RuleVerdict,
} from './classify/ClassificationRule.js';
export type { ClassifyContext } from './classify/ClassifyContext.js';
export { classifyError } from './classify/classifyError.js';
export type { Resilience } from './createResilience.js';
export { createResilience } from './createResilience.js';
export type { BreakerSnapshot, BreakerState } from './decide/BreakerState.js';
export { BREAKER_STATES } from './decide/BreakerState.js';
export type { Decision, DecisionKind, GiveUpReason } from './decide/Decision.js';
export { AttemptTimeoutError } from './errors/AttemptTimeoutError.js';
export { isResilienceError, ResilienceError } from './errors/ResilienceError.js';
export type { ExperimentResilience } from './experiment/createExperiment.js';
export type { ExperimentOptions, VariantKey, VariantOptions } from './experiment/ExperimentOptions.js';
export type {
  MemoryHealthHub,
  MemoryHealthStoreOptions,
} from './health/store/createMemoryHealthStore.js';
export {
  createMemoryHealthStore,
  memoryHealthStoreDefaults,
} from './health/store/createMemoryHealthStore.js';
export type {
  FleetVerdict,
  HealthStore,
  HealthUpdate,
  ProbeLease,
  ReadResult,
  SharedHealth,
  StoreMessage,
} from './health/store/HealthStore.js';
export { HEALTH_ENCODING_VERSION } from './health/store/healthCodec.js';
export type { Defaults } from './options/defaults.js';
export { defaults } from './options/defaults.js';
export type {
  BackoffOptions,
  BreakerOptions,
  BudgetOptions,
  DeadlineOptions,
  FleetOptions,
  GateOptions,
  GroupedResilienceOptions,
  ResilienceOptions,
  RetryAfterOptions,
  RetryOptions,
} from './options/ResilienceOptions.js';
export type { KnownNames } from './options/unknownOption.js';
export { unknownOption } from './options/unknownOption.js';
export type { Jitter } from './options.js';
export { noopRecorder } from './record/noopRecorder.js';
export type { Recorder } from './record/Recorder.js';
export type * from './record/ResilienceEvent.js';
