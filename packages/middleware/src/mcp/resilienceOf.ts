import type { Resilience } from '../createResilience.js';
import { internalsOf } from './internals.js';

/**
 * The pipeline a `withResilience` (or `connectWithResilience`) client runs its calls through: the shared one it
 * was given (`resilience`), else its own. Its `breakers()` tell the state of the client's breakers without a
 * recorder attached. Throws a `TypeError` naming the argument for any other client.
 *
 * @example
 * const open = resilienceOf(mcp).breakers().some((b) => b.state !== 'closed');
 */
export function resilienceOf(client: object): Resilience {
  const internals = internalsOf(client);
  if (internals === undefined) {
    throw new TypeError(
      'resilienceOf: client must be a client returned by withResilience or connectWithResilience',
    );
  }
  return internals.resilience;
}
