import { describe, expect, it } from 'vitest';
import { installedVersion } from '../../middleware/src/otel/test-support/installedVersion.js';

// setupTelemetry's suite is the application on OpenTelemetry SDK 3 (vitest.config.ts dedupes @opentelemetry/api,
// so the middleware's sources run on this package's api as well); the middleware's suite is the SDK 2 one.
describe('an application on OpenTelemetry SDK 3 (@opentelemetry/api 1.10)', () => {
  it('is what this suite runs on: api 1.10.x, sdk-node 0.30x, SDK 3.x', () => {
    const here = import.meta.url;
    expect(installedVersion('@opentelemetry/api', here)).toMatch(/^1\.10\./);
    expect(installedVersion('@opentelemetry/sdk-node', here)).toMatch(/^0\.30\d\./);
    expect(installedVersion('@opentelemetry/sdk-trace', here)).toMatch(/^3\./);
    expect(installedVersion('@opentelemetry/sdk-metrics', here)).toMatch(/^3\./);
  });
});
