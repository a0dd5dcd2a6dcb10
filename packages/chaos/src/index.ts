export { type ChaosOptions, PROTOCOL_REVISIONS, type ProtocolRevision } from './core/ChaosCore.js';
export type { FaultOptions } from './core/FaultCore.js';
export type { TransportKind } from './faults/FaultPicker.js';
export {
  type ChaosHttpOptions,
  type ChaosHttpServer,
  startChaosHttpServer,
} from './http/startChaosHttpServer.js';
export { CANCELLED_METHOD, type GroundTruthEntry } from './log/GroundTruthLog.js';
export type { Fault, FaultConditions, FaultEffect, FaultKind, FaultPlan } from './plan/FaultPlan.js';
export { loadPlan } from './plan/loadPlan.js';
export { PlanError } from './plan/PlanError.js';
export { parsePlan } from './plan/parsePlan.js';
export {
  type ChaosProxy,
  type ChaosProxyOptions,
  type HttpUpstream,
  type StdioUpstream,
  startChaosProxy,
} from './proxy/startChaosProxy.js';
export { type ChaosServer, type ChaosServerOptions, createChaosServer } from './stdio/createChaosServer.js';
