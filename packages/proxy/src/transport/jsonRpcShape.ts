import type { RequestId } from '@modelcontextprotocol/sdk/types.js';

/**
 * What one incoming message is, by the same rules as the SDK 1.x envelope schemas (`JSONRPCRequestSchema`,
 * `JSONRPCNotificationSchema`, `JSONRPCResultResponseSchema`, `JSONRPCErrorResponseSchema`: strict keys,
 * `jsonrpc: "2.0"`, an id that is a string or a safe integer, `params` and `result` objects whose `_meta` has a
 * string or integer `progressToken` and a related task with a string `taskId`), without building a zod parse of
 * each message. `invalid` says why, and carries the id when the message is a request with a usable one (so it can
 * be answered with `-32600`).
 */
export type JsonRpcShape =
  | { readonly kind: 'request' | 'notification' | 'result' | 'error' }
  | { readonly kind: 'invalid'; readonly reason: string; readonly id?: RequestId };

const RELATED_TASK = 'io.modelcontextprotocol/related-task';
const REQUEST_KEYS = new Set(['jsonrpc', 'id', 'method', 'params']);
const NOTIFICATION_KEYS = new Set(['jsonrpc', 'method', 'params']);
const RESULT_KEYS = new Set(['jsonrpc', 'id', 'result']);
const ERROR_KEYS = new Set(['jsonrpc', 'id', 'error']);

type Fields = Record<string, unknown>;

export function jsonRpcShape(message: unknown): JsonRpcShape {
  if (!isObject(message)) return { kind: 'invalid', reason: 'not a JSON object' };
  const m = message as Fields;
  if ('result' in m)
    return checked('result', responseProblem(m, RESULT_KEYS) ?? metaHolderProblem(m.result, 'result', true));
  if ('error' in m) return checked('error', responseProblem(m, ERROR_KEYS, true) ?? errorProblem(m.error));
  if ('id' in m) return requestShape(m);
  return checked(
    'notification',
    envelopeProblem(m, NOTIFICATION_KEYS) ?? metaHolderProblem(m.params, 'params'),
  );
}

function requestShape(m: Fields): JsonRpcShape {
  const problem = envelopeProblem(m, REQUEST_KEYS) ?? metaHolderProblem(m.params, 'params');
  if (!isId(m.id)) return { kind: 'invalid', reason: '"id" must be a string or a safe integer' };
  return problem === undefined ? { kind: 'request' } : { kind: 'invalid', reason: problem, id: m.id };
}

function checked(kind: 'notification' | 'result' | 'error', problem: string | undefined): JsonRpcShape {
  return problem === undefined ? { kind } : { kind: 'invalid', reason: problem };
}

/** The version, the keys and the method of a request or a notification. */
function envelopeProblem(m: Fields, keys: ReadonlySet<string>): string | undefined {
  return (
    versionProblem(m) ??
    keysProblem(m, keys) ??
    (typeof m.method === 'string' ? undefined : '"method" must be a string')
  );
}

function responseProblem(m: Fields, keys: ReadonlySet<string>, idOptional = false): string | undefined {
  const id =
    idOptional && m.id === undefined
      ? undefined
      : isId(m.id)
        ? undefined
        : '"id" must be a string or a safe integer';
  return versionProblem(m) ?? keysProblem(m, keys) ?? id;
}

function versionProblem(m: Fields): string | undefined {
  return m.jsonrpc === '2.0' ? undefined : '"jsonrpc" must be "2.0"';
}

function keysProblem(m: Fields, keys: ReadonlySet<string>): string | undefined {
  for (const key in m) if (!keys.has(key)) return `unexpected key "${key}"`;
  return undefined;
}

/** `params` (optional) or `result` (required): an object whose `_meta`, when present, is well formed. */
function metaHolderProblem(value: unknown, name: string, required = false): string | undefined {
  if (value === undefined && !required) return undefined;
  if (!isObject(value)) return `"${name}" must be an object`;
  const meta = (value as Fields)._meta;
  if (meta === undefined) return undefined;
  if (!isObject(meta)) return `"${name}._meta" must be an object`;
  const { progressToken, [RELATED_TASK]: related } = meta as Fields;
  if (progressToken !== undefined && !isId(progressToken)) {
    return `"${name}._meta.progressToken" must be a string or a safe integer`;
  }
  if (related !== undefined && !(isObject(related) && typeof (related as Fields).taskId === 'string')) {
    return `"${name}._meta.${RELATED_TASK}.taskId" must be a string`;
  }
  return undefined;
}

function errorProblem(error: unknown): string | undefined {
  if (!isObject(error)) return '"error" must be an object';
  const { code, message } = error as Fields;
  if (!Number.isSafeInteger(code)) return '"error.code" must be an integer';
  return typeof message === 'string' ? undefined : '"error.message" must be a string';
}

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is RequestId {
  return typeof value === 'string' || Number.isSafeInteger(value);
}
