/** What an upstream needs of one connected host (one MCP session facing the host): a way back to it. */
export interface HostLink {
  /**
   * Whose calls these are, for the upstream's negative cache: a repeat is answered only from a failure this host
   * got (a round refused for a capability it lacks never answers another host's call). The gateway's sessionless
   * hosts of 2026-07-28 share one (apart from every session's); `undefined` in `wrap` and `connect` (one host).
   */
  readonly caller?: string;
  /** Sends a server-to-client request (sampling, elicitation, roots) to the host. */
  request(
    request: { method: string; params?: Record<string, unknown> },
    options: { signal: AbortSignal; relatedRequestId?: string | number },
  ): Promise<unknown>;
  /** Sends a notification to the host (`list_changed`, logging, resource updates). */
  notify(notification: { method: string; params?: Record<string, unknown> }): Promise<void>;
  /** Whether the host declared the capability a server-to-client method needs. */
  accepts(method: string): boolean;
  /**
   * For a link that serves one call (each call of the gateway's sessionless hosts, on 2026-07-28): whether that
   * call's failure may be remembered for the model's repeats. Those hosts share one memory, so a call during
   * which the upstream asked the host anything is not remembered: its outcome is that host's. Default: `true`.
   */
  rememberFailure?(): boolean;
}
