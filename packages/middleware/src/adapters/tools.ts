/**
 * The framework-neutral core of the adapters: run any agent framework's tool calls through the resilience
 * pipeline with the negative cache for the model's repeats, and get the sentence a model can act on.
 */
export type {
  GuardedCall,
  GuardedClassification,
  GuardIdempotency,
  GuardOptions,
  ToolGuard,
  ToolGuardOptions,
} from './toolGuard.js';
export { classificationOf, createToolGuard, failureText } from './toolGuard.js';
