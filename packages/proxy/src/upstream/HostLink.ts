/** What an upstream needs of one connected host (one MCP session facing the host): a way back to it. */
export interface HostLink {
  /**
   * Whose calls these are, for the upstream's negative cache: a repeat is answered only from a failure this host
   * got (a round refused for a capability it lacks never answers another host's call). `undefined` for the
   * sessionless hosts of 2026-07-28, which share one memory (apart from every session's).
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
   * Told when the upstream sent a server-to-client request during this host's calls that was refused before it
   * reached the host (several hosts had calls in flight): the call's outcome then depends on that refusal.
   */
  refusedDuringCall?(): void;
}
