import type { Root } from '@modelcontextprotocol/sdk/types.js';

type Message = { method: string; params?: Record<string, unknown> };

/** How many roots-only rounds the proxy answers for one host request at most (a server that keeps asking). */
const MAX_ROOTS_ROUNDS = 8;

/**
 * A 2026-07-28 upstream's request for a 2026-07-28 host, when the proxy owns the upstream's roots (a gateway
 * server's `roots`): an `input_required` result that asks only `roots/list` is answered by the proxy, which
 * repeats the request with those roots (and the round's `requestState`) instead of asking the host. Any other
 * result, a round that asks more than the roots included, goes to the host as it is. `roots` undefined: sent once.
 */
export async function answerRootsRounds(
  roots: readonly Root[] | undefined,
  request: Message,
  send: (request: Message) => Promise<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  let sent = request;
  for (let round = 0; ; round++) {
    const result = await send(sent);
    const keys = roots === undefined || round >= MAX_ROOTS_ROUNDS ? undefined : rootsOnly(result);
    if (keys === undefined || roots === undefined) return result;
    const answer = { roots: roots.map((root) => ({ ...root })) };
    const state = result.requestState;
    sent = {
      ...request,
      params: {
        ...request.params,
        inputResponses: Object.fromEntries(keys.map((key) => [key, answer])),
        ...(typeof state === 'string' ? { requestState: state } : {}),
      },
    };
  }
}

/** The keys of an `input_required` result's requests when every one is a `roots/list`, else `undefined`. */
function rootsOnly(result: Record<string, unknown>): string[] | undefined {
  if (result.resultType !== 'input_required') return undefined;
  const requests = result.inputRequests;
  if (typeof requests !== 'object' || requests === null) return undefined;
  const entries = Object.entries(requests as Record<string, { method?: unknown } | null>);
  if (entries.length === 0 || entries.some(([, r]) => r?.method !== 'roots/list')) return undefined;
  return entries.map(([key]) => key);
}
