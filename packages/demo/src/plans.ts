import type { Fault, FaultPlan } from '@mcp-resilience/chaos';
import type { Phase } from './timeline.js';

/**
 * The usual production mix: about three failures in four are validation or authorization errors (never worth a
 * retry); the rest are transient (5xx from a proxy, resets, an upstream hiccup). The faults that belong to a call
 * fail that call on every attempt and on the model's repeat, as in the benchmark: bad arguments are sent by the
 * agents themselves (`nextStep`: 5% of calls, half of them in the bad-argument wave) and the servers reject them
 * deterministically; a bad token is drawn per call (`per: 'call'`: keyed by the tool and its arguments), not per
 * request. Only the transient faults are a new draw for every request.
 */
const productionMix = (http: boolean): Fault[] => [
  ...(http ? [{ name: 'auth', kind: 'unauthorized', probability: 0.02, per: 'call' } as Fault] : []),
  { name: 'upstream_hiccup', kind: 'tool_error', text: 'Service temporarily unavailable', probability: 0.01 },
  ...(http
    ? ([
        { name: 'proxy_503', kind: 'http_error', status: 503, probability: 0.01 },
        { name: 'reset', kind: 'reset', probability: 0.005 },
      ] as Fault[])
    : []),
];

/** The fault plan of an HTTP chaos server during a phase of the story. */
export function planFor(server: 'search' | 'tickets', phase: Phase, speed: number): FaultPlan {
  const mix = productionMix(true);
  if (server === 'tickets' && phase.name === 'outage') {
    return { faults: [{ name: 'outage', kind: 'outage', mode: 'unavailable' }, ...mix] };
  }
  if (server === 'tickets' && phase.name === 'flapping') {
    return {
      faults: [
        { name: 'flapping', kind: 'flapping', period: Math.max(1_000, 12_000 / speed), duty: 0.5 },
        ...mix,
      ],
    };
  }
  if (server === 'search' && phase.name === 'rate_limit_storm') {
    const retryAfter = speed >= 2 ? 1 : 2;
    return { faults: [{ name: 'rate_limit', kind: 'rate_limit', retryAfter, probability: 0.5 }, ...mix] };
  }
  return { faults: mix };
}

/** The plan of the stdio `weather` server (its own process per agent): the production mix throughout. */
export const weatherPlan: FaultPlan = { faults: productionMix(false) };
