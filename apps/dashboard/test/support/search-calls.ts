import { createResilience, type Recorder } from '@mcp-resilience/middleware';

export type SearchCall = (attributes?: Record<string, string>) => Promise<unknown>;

/**
 * Calls on server `search` through the middleware, recorded by `recorder`, each with the given attributes:
 * succeeding, or failing at its only attempt (the Calls page keeps failed calls, not first-try successes).
 */
export function searchCaller(recorder: Recorder, outcome: 'success' | 'failure'): SearchCall {
  const resilience = createResilience({ recorder, maxAttempts: 1 });
  return (attributes = {}) => {
    const call = resilience.execute(
      async () => {
        if (outcome === 'failure') throw new Error('search is down');
        return 'ok';
      },
      { endpoint: 'search', attributes: { 'mcp.resilience.server': 'search', ...attributes } },
    );
    return outcome === 'failure' ? call.catch(() => undefined) : call;
  };
}

/** `find` (a tools/call), then `tools/list` twice: a tool's row and a method's row of the latency table. */
export async function findThenListTwice(call: SearchCall): Promise<void> {
  await call({ 'mcp.method.name': 'tools/call', 'gen_ai.tool.name': 'find' });
  await call({ 'mcp.method.name': 'tools/list' });
  await call({ 'mcp.method.name': 'tools/list' });
}
