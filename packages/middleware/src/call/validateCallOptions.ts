import { show } from '../checkOptions.js';
import type { CallOptions } from './CallOptions.js';

/** An object whose values are all strings (false when reading it throws). */
function isStringRecord(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  try {
    return Object.values(value).every((v) => typeof v === 'string');
  } catch {
    return false;
  }
}

/** Throws a `TypeError` that names the bad call option, its value and what is allowed. */
export function validateCallOptions(fn: unknown, call: CallOptions): void {
  if (typeof fn !== 'function') throw new TypeError(`execute: fn must be a function, got ${typeof fn}`);
  if (typeof call !== 'object' || call === null)
    throw new TypeError(`execute: options must be an object, got ${call}`);
  // `show` prints any value (a bigint, a cycle, a throwing getter) without throwing
  const bad = (name: string, allowed: string, value: unknown) =>
    new TypeError(`execute: option '${name}' must be ${allowed}, got ${show(value)}`);
  const { endpoint, operation, idempotent, signal, timeoutMs, maxAttempts, attributes, recover, rules } =
    call;
  if (endpoint !== undefined && (typeof endpoint !== 'string' || endpoint === '')) {
    throw bad('endpoint', 'a non-empty string', endpoint);
  }
  if (operation !== undefined && typeof operation !== 'string') throw bad('operation', 'a string', operation);
  if (idempotent !== undefined && typeof idempotent !== 'boolean')
    throw bad('idempotent', 'a boolean', idempotent);
  if (signal !== undefined && !(signal instanceof AbortSignal))
    throw bad('signal', 'an AbortSignal', typeof signal);
  if (timeoutMs !== undefined && !(typeof timeoutMs === 'number' && timeoutMs > 0)) {
    throw bad('timeoutMs', 'a number > 0', timeoutMs);
  }
  if (maxAttempts !== undefined && !(Number.isInteger(maxAttempts) && maxAttempts >= 1)) {
    throw bad('maxAttempts', 'an integer >= 1', maxAttempts);
  }
  for (const [name, value] of [
    ['attributes', attributes],
    ['endpointAttributes', call.endpointAttributes],
  ] as const) {
    if (value !== undefined && !isStringRecord(value)) {
      throw bad(name, 'an object of strings', value);
    }
  }
  if (rules !== undefined && !Array.isArray(rules)) throw bad('rules', 'an array of rules', typeof rules);
  if (recover !== undefined && (typeof recover !== 'object' || recover === null)) {
    throw bad('recover', 'an object of functions by error type', typeof recover);
  }
  validateContext(call, bad);
}

/**
 * The typed context: `variant` and `caller` non-empty strings, `sessionId` a string, `routedFrom` a `{ server }`
 * with a non-empty name, `rememberFailure` a function.
 */
function validateContext(call: CallOptions, bad: (name: string, allowed: string, value: unknown) => Error) {
  const { variant, sessionId, routedFrom, caller, rememberFailure } = call;
  if (caller !== undefined && (typeof caller !== 'string' || caller === '')) {
    throw bad('caller', 'a non-empty string', caller);
  }
  if (rememberFailure !== undefined && typeof rememberFailure !== 'function') {
    throw bad('rememberFailure', 'a function returning a boolean', rememberFailure);
  }
  if (variant !== undefined && (typeof variant !== 'string' || variant === '')) {
    throw bad('variant', 'a non-empty string', variant);
  }
  if (sessionId !== undefined && typeof sessionId !== 'string') throw bad('sessionId', 'a string', sessionId);
  const server = (routedFrom as { server?: unknown } | null | undefined)?.server;
  if (routedFrom !== undefined && (typeof server !== 'string' || server === '')) {
    throw bad('routedFrom', "an object { server } with the primary server's name", routedFrom);
  }
}
