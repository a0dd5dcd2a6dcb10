/** What the gate says about an attempt. Plain data. */
export type GateVerdict =
  /** Go: as a normal attempt, a half-open probe, or one of the calls released in the ramp after recovery. */
  | {
      readonly kind: 'admitted';
      readonly probe: boolean;
      readonly ramp: boolean;
      /** For a call released by the ramp: the window cuts made before its release. */
      readonly cuts?: number;
      /** For a call released by the ramp: when (its round trip is measured from there). */
      readonly releasedAt?: number;
    }
  /** Recovery before the call's limit is unlikely, or no verdict can come before it: fail now. */
  | { readonly kind: 'circuit_open'; readonly retryAfterMs: number }
  /** The wait queue is full. */
  | { readonly kind: 'shed'; readonly waiting: number }
  /** The call waited until its limit without being released. */
  | { readonly kind: 'timeout'; readonly retryAfterMs: number }
  /** The caller's signal aborted the wait. */
  | { readonly kind: 'aborted'; readonly reason: unknown };

export type Admitted = Extract<GateVerdict, { kind: 'admitted' }>;

export const GO: Admitted = { kind: 'admitted', probe: false, ramp: false };
export const GO_PROBE: Admitted = { kind: 'admitted', probe: true, ramp: false };
