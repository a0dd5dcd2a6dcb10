/**
 * Attributes an edge learns about one attempt while it runs (the JSON-RPC request id the SDK gave it, the
 * negotiated protocol version, the session, the JSON-RPC error code it failed with), for the recorders.
 *
 * The key is the attempt's trace-context carrier: the object the loop hands to the recorder in `attempt_started`
 * and to the attempt's function as `traceContext`. It exists only when a recorder is attached (without one the
 * carrier is a shared frozen object, and nothing is kept). Plain data, no dependency: the MCP edge writes, the
 * OTel edge reads.
 */
const annotations = new WeakMap<object, Record<string, string>>();

/** Adds attributes to the attempt whose carrier this is (later values win). */
export function annotateAttempt(carrier: object, attributes: Readonly<Record<string, string>>): void {
  if (Object.isFrozen(carrier)) return;
  const current = annotations.get(carrier);
  annotations.set(carrier, current ? Object.assign(current, attributes) : { ...attributes });
}

/** The attributes annotated on the attempt whose carrier this is. */
export function attemptAnnotations(
  carrier: object | undefined,
): Readonly<Record<string, string>> | undefined {
  return carrier === undefined ? undefined : annotations.get(carrier);
}
