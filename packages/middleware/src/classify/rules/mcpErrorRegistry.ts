import type { Finding, Verdict } from '../Finding.js';
import type { RegistryData } from '../inspectError.js';

/** The range the 2026-07-28 schema reserves for MCP's own errors. */
export const MCP_RESERVED_MIN = -32099;
export const MCP_RESERVED_MAX = -32020;

/** -32024 Unavailable's `data.reason` values (draft error registry); any other reason is `other`. */
export const UNAVAILABLE_REASONS = [
  'overloaded',
  'maintenance',
  'shutting_down',
  'dependency_unavailable',
  'deadline_exceeded',
  'capacity',
  'other',
] as const;
export type UnavailableReason = (typeof UNAVAILABLE_REASONS)[number];

/** One known MCP code: its name (the last part of `source`) and what it means. */
export interface RegistryEntry {
  readonly name: string;
  readonly verdict: Verdict;
}

const refused = (type: Verdict['type']): Verdict => ({ class: 'non_retryable', type, execution: 'not_sent' });
const change = (type: Verdict['type']): Verdict => ({ class: 'conditional', type, execution: 'not_sent' });

/**
 * The MCP error codes of the 2026-07-28 schema and of the draft error registry (transports WG, 2026-09-03), each
 * with its retry class mapped onto ours:
 * - `retry-after-change` becomes `non_retryable` where only new arguments or a new client can help (the model's or
 *   the developer's job), `conditional` where a recovery the caller gives can make the change (413-like
 *   `payload_too_large`, a stale state to refresh): without one, `decide` gives up (`condition_unmet`);
 * - `retry-after-delay` becomes a `conditional` rate limit (-32023, which a server sends only for a request it did
 *   not execute) or a `retryable` unavailability (-32024, which may have run: `unknown`), the wait floored by
 *   `data.retryAfterMs`;
 * - `do-not-retry` is `non_retryable`.
 */
export const MCP_ERROR_REGISTRY: ReadonlyMap<number, RegistryEntry> = new Map([
  [-32020, { name: 'header_mismatch', verdict: refused('invalid_request') }],
  [-32021, { name: 'missing_capability', verdict: refused('invalid_request') }],
  [-32022, { name: 'unsupported_version', verdict: refused('invalid_request') }],
  [-32023, { name: 'rate_limited', verdict: change('rate_limited') }],
  [
    -32024,
    { name: 'unavailable', verdict: { class: 'retryable', type: 'unavailable', execution: 'unknown' } },
  ],
  [-32025, { name: 'request_too_large', verdict: change('payload_too_large') }],
  [-32026, { name: 'stale_state', verdict: change('conflict') }],
  [-32027, { name: 'unsupported_feature', verdict: refused('method_not_found') }],
  [-32042, { name: 'url_elicitation_required', verdict: refused('user_action_required') }],
]);

const SOURCE = 'mcp.protocol';

export const isMcpReservedCode = (code: number): boolean =>
  Number.isInteger(code) && code >= MCP_RESERVED_MIN && code <= MCP_RESERVED_MAX;

const unavailableReason = (reason: string | undefined): UnavailableReason | undefined =>
  reason === undefined
    ? undefined
    : (((UNAVAILABLE_REASONS as readonly string[]).includes(reason) ? reason : 'other') as UnavailableReason);

/** -32024: a `deadline_exceeded` reason is the server's own timeout; the reason names the source. */
function unavailable(entry: RegistryEntry, data: RegistryData | undefined): Finding {
  const reason = unavailableReason(data?.reason);
  const source = reason === undefined ? `${SOURCE}.${entry.name}` : `${SOURCE}.${entry.name}.${reason}`;
  return reason === 'deadline_exceeded'
    ? { ...entry.verdict, type: 'timeout', source }
    : { ...entry.verdict, source };
}

/**
 * What an MCP-reserved code (-32099..-32020) means, with its `source` (`mcp.protocol.<name>`); `undefined` outside
 * that range. A reserved code the registry does not know is `non_retryable` (`mcp.protocol.reserved_code`), unless
 * its `data.retryAfterMs` asks for a wait: then a `retryable` unavailability (`mcp.protocol.reserved_code.retry_after`).
 */
export function classifyMcpCode(code: number, data: RegistryData | undefined): Finding | undefined {
  if (!isMcpReservedCode(code)) return undefined;
  const entry = MCP_ERROR_REGISTRY.get(code);
  if (entry?.name === 'unavailable') return unavailable(entry, data);
  if (entry !== undefined) return { ...entry.verdict, source: `${SOURCE}.${entry.name}` };
  return data?.retryAfterMs === undefined
    ? { class: 'non_retryable', type: 'unknown', execution: 'unknown', source: `${SOURCE}.reserved_code` }
    : {
        class: 'retryable',
        type: 'unavailable',
        execution: 'unknown',
        source: `${SOURCE}.reserved_code.retry_after`,
      };
}

/**
 * The registry's common `data` members, on any JSON-RPC error: `requiresUserAction: true` is never retried
 * (`non_retryable`; `user_action_required` unless it already was non-retryable), `notProcessed: true` says the
 * server did not act on the request, so it may be re-sent even when it is not safe to repeat (`not_sent`), and only
 * that: the class stays. A `notProcessed` with the `deadline_exceeded` reason contradicts itself (the registry
 * forbids it) and is ignored. Each change is named in `source`.
 */
export function withRegistryData(finding: Finding, data: RegistryData | undefined): Finding {
  if (data === undefined) return finding;
  if (data.requiresUserAction === true) {
    const { retryAfterMs: _ignored, healthNeutral: _neutral, ...rest } = finding;
    return {
      ...rest,
      class: 'non_retryable',
      type: finding.class === 'non_retryable' ? finding.type : 'user_action_required',
      source: `${finding.source}.requires_user_action`,
    };
  }
  const contradicts = unavailableReason(data.reason) === 'deadline_exceeded';
  if (data.notProcessed === true && !contradicts && finding.execution !== 'not_sent') {
    return { ...finding, execution: 'not_sent', source: `${finding.source}.not_processed` };
  }
  return finding;
}
