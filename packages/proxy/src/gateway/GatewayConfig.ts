import type { McpResilienceOptions } from '@mcp-resilience/middleware/mcp';
import type { Root } from '@modelcontextprotocol/sdk/types.js';
import type { UpstreamSpec } from '../upstream/UpstreamSpec.js';

/** One `mcpServers` entry of a gateway config, validated. */
export interface GatewayServer {
  readonly name: string;
  readonly spec: UpstreamSpec;
  /** Its `resilience` object: `withResilience` options (numbers and strings only in JSON). */
  readonly resilience: McpResilienceOptions;
  /** Other servers of the file that stand in for this one's tools (in order). */
  readonly fallbacks: readonly string[];
  /**
   * Its `roots`: the gateway announces `roots` to this server and answers its `roots/list` with these itself,
   * never asking a host (the roots of a shared upstream are the operator's). None: `roots` is not announced.
   */
  readonly roots?: readonly Root[];
}

/** A gateway config file, validated: the servers in file order (fallbacks before the servers naming them). */
export interface GatewayConfig {
  readonly file: string;
  readonly servers: readonly GatewayServer[];
}
