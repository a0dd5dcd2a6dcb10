import {
  CIRCUIT_BREAKER_REASON_FLEET_CLOSED,
  CIRCUIT_BREAKER_REASON_FLEET_OPEN,
} from '@mcp-resilience/middleware/semconv';

/**
 * Whether a breaker's current state was adopted from another replica's verdict through the shared health store
 * (transition reason `fleet_open` / `fleet_closed`), and how the Breakers page says so; undefined otherwise.
 */
export function fleetVerdictLabel(reason: string | undefined): string | undefined {
  if (reason === CIRCUIT_BREAKER_REASON_FLEET_OPEN)
    return 'verdict from the fleet: another replica opened it';
  if (reason === CIRCUIT_BREAKER_REASON_FLEET_CLOSED)
    return "verdict from the fleet: another replica's probe closed it";
  return undefined;
}
