export type { Telemetry } from './setupTelemetry.js';
export { setupTelemetry } from './setupTelemetry.js';
export type { OtlpProtocol, TelemetryOptions } from './TelemetryOptions.js';
export { telemetryDefaults } from './TelemetryOptions.js';
