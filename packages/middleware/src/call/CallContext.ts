/** The primary call a fallback call was routed from. */
export interface RoutedFrom {
  /** The primary server's name (`mcp.server` of the primary call). */
  readonly server: string;
}

/**
 * Typed facts about a call that experiments and the MCP stages read (never telemetry attributes). The recorders
 * see them as attributes, mapped in one place: `record/callAttributes.ts`.
 */
export interface CallContext {
  /** The experiment variant the call runs on when it is already drawn (a fallback keeps its primary's). */
  readonly variant?: string;
  /** The protocol session the call runs in; `variantKey: 'session'` hashes it. */
  readonly sessionId?: string;
  /** Set on a call a fallback server serves: where it was routed from. */
  readonly routedFrom?: RoutedFrom;
  /**
   * Whom the call is made for, when one client serves several callers (a gateway's host sessions, a service's
   * users): the MCP negative cache answers only that caller's repeats from the failures that caller got. Not
   * recorded in telemetry (it may name a user). Default: none, one memory for every call.
   */
  readonly caller?: string;
  /**
   * Asked once the call failed for good, before the MCP negative cache keeps the failure for the model's repeats:
   * `false` when the failure depended on the moment rather than on the call (a proxy refused what the server asked
   * during it because other calls were in flight, or a limit was reached then), so that an identical repeat goes
   * to the server again. A function that throws counts as `false`. Default: the failure is remembered.
   */
  readonly rememberFailure?: () => boolean;
}
