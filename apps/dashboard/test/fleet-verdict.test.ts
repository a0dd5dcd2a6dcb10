import { describe, expect, it } from 'vitest';
import { fleetVerdictLabel } from '../lib/fleet-verdict';

describe('fleetVerdictLabel', () => {
  it("says when a breaker's state came from the fleet, and only then", () => {
    expect(fleetVerdictLabel('fleet_open')).toMatch(/from the fleet.*opened/);
    expect(fleetVerdictLabel('fleet_closed')).toMatch(/from the fleet.*closed/);
    for (const reason of ['consecutive_failures', 'probe_succeeded', '', undefined]) {
      expect(fleetVerdictLabel(reason)).toBeUndefined();
    }
  });
});
