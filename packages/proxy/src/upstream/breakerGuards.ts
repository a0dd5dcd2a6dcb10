import type { BreakerSnapshot } from '@mcp-resilience/middleware';
import { ATTR_MCP_RESILIENCE_SERVER } from '@mcp-resilience/middleware/semconv';

/**
 * Whether a breaker of `server` among `breakers` (a pipeline's `breakers()`) is open or half-open: only the
 * pipeline's own probe may reach the server now.
 */
export function breakerGuards(breakers: readonly BreakerSnapshot[], server: string): boolean {
  return breakers.some(
    (b) => b.state !== 'closed' && (b.attributes[ATTR_MCP_RESILIENCE_SERVER] ?? b.endpoint) === server,
  );
}
