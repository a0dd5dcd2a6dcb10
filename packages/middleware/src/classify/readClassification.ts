import {
  type Classification,
  type ErrorClass,
  type ErrorType,
  type Execution,
  isErrorClass,
  isErrorType,
  isExecution,
} from './Classification.js';
import { safeGet } from './safeGet.js';

/** The longest `Classification.message`. */
const MAX_MESSAGE_LENGTH = 512;

/** A verdict read from untrusted data: `execution` and `source` may be missing. */
export interface ReadVerdict {
  readonly class: ErrorClass;
  readonly type: ErrorType;
  readonly execution?: Execution;
  readonly retryAfterMs?: number;
  readonly healthNeutral?: boolean;
  readonly source?: string;
  readonly message?: string;
}

/** Cuts a message to {@link MAX_MESSAGE_LENGTH} characters without splitting a surrogate pair. */
export function capMessage(message: string): string {
  if (message.length <= MAX_MESSAGE_LENGTH) return message;
  const cut = message.slice(0, MAX_MESSAGE_LENGTH);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

/** A delay in milliseconds: finite and not negative. */
const isDelay = (value: unknown): value is number =>
  typeof value === 'number' && Number.isFinite(value) && value >= 0;

/**
 * Reads a `RuleVerdict` or `Classification` from any value (a rule's output, a `ResilienceError`'s field),
 * keeping only well-formed fields. `undefined` when `class` or `type` is not one of the known values.
 */
export function readVerdict(value: unknown): ReadVerdict | undefined {
  const errorClass = safeGet(value, 'class');
  const type = safeGet(value, 'type');
  if (!isErrorClass(errorClass) || !isErrorType(type)) return undefined;
  const execution = safeGet(value, 'execution');
  const retryAfterMs = safeGet(value, 'retryAfterMs');
  const healthNeutral = safeGet(value, 'healthNeutral');
  const source = safeGet(value, 'source');
  const message = safeGet(value, 'message');
  return {
    class: errorClass,
    type,
    ...(isExecution(execution) ? { execution } : {}),
    ...(isDelay(retryAfterMs) ? { retryAfterMs: retryAfterMs + 0 } : {}),
    ...(typeof healthNeutral === 'boolean' ? { healthNeutral } : {}),
    ...(typeof source === 'string' && source !== '' ? { source } : {}),
    ...(typeof message === 'string' ? { message: capMessage(message) } : {}),
  };
}

/** Reads a complete `Classification` (with `execution` and a non-empty `source`), or `undefined`. */
export function readClassification(value: unknown): Classification | undefined {
  const verdict = readVerdict(value);
  if (verdict?.execution === undefined || verdict.source === undefined) return undefined;
  return verdict as Classification;
}
