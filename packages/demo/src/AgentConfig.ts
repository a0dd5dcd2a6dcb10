/** What the orchestrator tells an agent process (as JSON in `DEMO_AGENT_CONFIG`). */
export interface AgentConfig {
  readonly group: 'resilient' | 'naive';
  readonly id: number;
  readonly seed: number;
  readonly speed: number;
  /** Epoch milliseconds when the story started. */
  readonly startedAt: number;
  /** Where telemetry goes (the dashboard, or a collector). */
  readonly otlpEndpoint: string;
  readonly searchUrl: string;
  readonly ticketsUrl: string;
  /** The chaos CLI (`dist/cli.js`) and the plan file of the stdio `weather` server. */
  readonly chaosCli: string;
  readonly weatherPlanFile: string;
  /**
   * The proxy CLI (`mcp-resilience`, `dist/cli.js`), for the one agent that reaches its stdio `weather` server
   * through `mcp-resilience wrap`, as an agent in another language would: a plain client, the resilience layer in
   * the wrapper, which reports to the same dashboard as `demo-agent-proxied`.
   */
  readonly proxyCli?: string;
}

export const serviceName = (group: AgentConfig['group']) => `demo-agent-${group}`;

/** The `service.name` of the wrapper the proxied agent runs its `weather` server through. */
export const PROXIED_SERVICE = 'demo-agent-proxied';
