import type { McpResilienceOptions } from '@mcp-resilience/middleware/mcp';
import type { UpstreamSpec } from '../upstream/UpstreamSpec.js';

/** Options every mode takes. */
export interface CommonFlags {
  /** `--server-name`: the logical server name (`mcp.resilience.server`, the breaker key). Default: the upstream's name. */
  readonly serverName?: string;
  /** `--service-name`: OpenTelemetry `service.name`. Default: `OTEL_SERVICE_NAME`, else `mcp-resilience`. */
  readonly serviceName?: string;
  /** `--request-timeout-ms`: one attempt's time limit (reset by progress). */
  readonly requestTimeoutMs?: number;
  /** `--input-round-timeout-ms`: how long an input_required round waits for a 2026-07-28 host's repeat. */
  readonly inputRoundTimeoutMs?: number;
  /** The resilience options given as flags (`--max-attempts`, `--timeout-ms`, ...). */
  readonly resilience: McpResilienceOptions;
}

/** A parsed command line: what to run, or why not. */
export type CommandLine =
  | { readonly kind: 'help'; readonly text: string }
  | { readonly kind: 'error'; readonly message: string }
  | {
      readonly kind: 'stdio';
      readonly mode: 'wrap' | 'connect';
      readonly spec: UpstreamSpec;
      readonly flags: CommonFlags;
    }
  | {
      readonly kind: 'gateway';
      readonly config: string;
      readonly host: string;
      readonly port: number;
      readonly token?: string;
      readonly allowedOrigins: readonly string[];
      /** `Host` values accepted besides the gateway's own address (`gateway:8787` in a compose network). */
      readonly allowedHosts: readonly string[];
      readonly flags: CommonFlags;
    };
