import {
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE,
  ATTR_MCP_RESILIENCE_SERVER,
  METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE,
} from '@mcp-resilience/middleware/semconv';
import { nanos } from './otlp-json';

export interface GaugeBreaker {
  readonly server: string;
  /** '' for a per-server breaker. */
  readonly tool: string;
  readonly state: 'closed' | 'open' | 'half_open';
}

const str = (key: string, v: string) => ({ key, value: { stringValue: v } });

/**
 * An OTLP/JSON export of one agent instance's breaker-state gauge (`mcp.resilience.circuit_breaker.state`,
 * one-hot: 1 for the current state, 0 for the others) for many breakers: what a fleet with a breaker per tool
 * reports, and what the Breakers page must page through.
 */
export function breakerGaugeRequest(
  breakers: readonly GaugeBreaker[],
  timeMs: number,
  resource: { service?: string; instance?: string } = {},
) {
  const dataPoints = breakers.flatMap((b) =>
    (['closed', 'open', 'half_open'] as const).map((state) => ({
      timeUnixNano: nanos(timeMs),
      asInt: state === b.state ? 1 : 0,
      attributes: [
        str(ATTR_MCP_RESILIENCE_SERVER, b.server),
        ...(b.tool === '' ? [] : [str(ATTR_GEN_AI_TOOL_NAME, b.tool)]),
        str(ATTR_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE, state),
      ],
    })),
  );
  return {
    resourceMetrics: [
      {
        resource: {
          attributes: [
            str('service.name', resource.service ?? 'fleet-agent'),
            str('service.instance.id', resource.instance ?? 'fleet-1'),
          ],
        },
        scopeMetrics: [
          {
            scope: { name: '@mcp-resilience/middleware' },
            metrics: [{ name: METRIC_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE, gauge: { dataPoints } }],
          },
        ],
      },
    ],
  };
}
