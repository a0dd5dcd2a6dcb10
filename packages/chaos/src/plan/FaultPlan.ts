/**
 * A fault plan: which faults the chaos server injects, and when. Plain data, so it can live in a YAML or
 * JSON file. Faults are tried in order for every JSON-RPC request; the first one that matches and fires wins.
 */
export interface FaultPlan {
  faults: Fault[];
  /**
   * How an unknown (expired, crashed, deleted) session id is answered: 404 `Session not found` as the spec and
   * the TypeScript SDK do (default), or 400 `Bad Request: No valid session ID provided` as server-everything does.
   */
  unknownSession?: 404 | 400;
}

/** When a fault applies. Every field is optional. */
export interface FaultConditions {
  /** Label written to the ground-truth log instead of the kind. */
  name?: string;
  /** Only `tools/call` of these tools. */
  tool?: string | string[];
  /** Only these JSON-RPC methods (`*` = any). Default: `tools/call`, or `*` for `outage` and `flapping`. */
  method?: string | string[];
  /** Chance that a matching request gets the fault, in [0, 1]. Default 1. */
  probability?: number;
  /**
   * What the probability draw belongs to: `'request'` (default: a new draw from the seeded PRNG for every request)
   * or `'call'` (a draw keyed by the seed, the fault and the call's tool and arguments: the same call meets the
   * same fate on every attempt and every repeat, as bad arguments or a bad token do).
   */
  per?: 'request' | 'call';
  /** Time window, ms since the server started: `from` inclusive (default 0), `to` exclusive (default never). */
  from?: number;
  to?: number;
  /** Only every Nth matching request is eligible (the Nth, 2Nth, ...). Default 1. */
  every?: number;
  /** Inject at most this many times. Default: unlimited. */
  times?: number;
}

export type Fault = FaultConditions & FaultEffect;

/** What happens to a request that gets the fault. */
export type FaultEffect =
  /** Validation failure: an `isError` result with the TypeScript SDK's text (`result`), or a JSON-RPC -32602 error (`error`). */
  | { kind: 'invalid_params'; mode?: 'result' | 'error'; message?: string }
  /** The tool "ran" and its upstream failed: an `isError` result with this text. */
  | { kind: 'tool_error'; text?: string }
  /** HTTP 401 with `WWW-Authenticate: Bearer error="invalid_token"`. */
  | { kind: 'unauthorized' }
  /** HTTP 403 with `WWW-Authenticate: Bearer error="insufficient_scope"`. */
  | { kind: 'forbidden' }
  /** HTTP 429 with `Retry-After` (seconds) and a JSON-RPC error body. */
  | { kind: 'rate_limit'; retryAfter?: number }
  /** HTTP 5xx with an HTML body, as a reverse proxy sends it; optional `Retry-After` (seconds). */
  | { kind: 'http_error'; status?: 500 | 502 | 503 | 504; retryAfter?: number }
  /** Never answers, or answers normally after `delay` ms. */
  | { kind: 'hang'; delay?: number }
  /** Destroys the TCP socket before the request is executed. */
  | { kind: 'reset' }
  /** Executes the request, then destroys the TCP socket instead of answering. */
  | { kind: 'reset_after' }
  /**
   * Streamable HTTP: answers with an SSE stream (headers sent, no event id: nothing to resume), lets the request
   * execute, then destroys the connection before the response: the request is lost mid-stream, as 2026-07-28
   * describes it (the client must re-issue it with a new id, when that is safe).
   */
  | { kind: 'stream_broken' }
  /** Forgets the request's session and answers as for an unknown session (see `FaultPlan.unknownSession`). */
  | { kind: 'session_expired' }
  /** stdio: the process exits with `exitCode`. HTTP: every session is forgotten and the socket is destroyed. */
  | { kind: 'crash'; exitCode?: number }
  /** Down inside the `from`/`to` window: 503 with an HTML body (`unavailable`) or a socket reset (`reset`). */
  | { kind: 'outage'; mode?: 'unavailable' | 'reset' }
  /** Periodically down: each `period` ms, up first, then down for the `duty` fraction (default 0.5). */
  | { kind: 'flapping'; period: number; duty?: number; mode?: 'unavailable' | 'reset' };

export type FaultKind = FaultEffect['kind'];
