/** One alert instance's state (per rule and label set). */
export interface InstanceState {
  readonly state: 'inactive' | 'pending' | 'firing';
  /** When the condition started holding (pending since). */
  readonly activeAt?: number;
  readonly firedAt?: number;
  /** Last evaluation at which the condition held. */
  readonly lastTrueAt?: number;
}

export type Transition = 'pending' | 'firing' | 'resolved' | 'cleared';

export interface StepResult {
  readonly next: InstanceState;
  /** What to record (and notify for firing/resolved); none when nothing changed. */
  readonly transitions: Transition[];
}

/**
 * The Prometheus alerting state machine: inactive → pending while the condition holds for less than `forMs`,
 * → firing after, → resolved once it stops holding (after `keepFiringForMs`). A pending alert whose condition
 * stops holding is cleared without ever firing.
 */
export function step(
  prev: InstanceState,
  holds: boolean,
  now: number,
  rule: { readonly forMs: number; readonly keepFiringForMs: number },
): StepResult {
  switch (prev.state) {
    case 'inactive':
      if (!holds) return { next: prev, transitions: [] };
      if (rule.forMs <= 0) {
        return {
          next: { state: 'firing', activeAt: now, firedAt: now, lastTrueAt: now },
          transitions: ['pending', 'firing'],
        };
      }
      return { next: { state: 'pending', activeAt: now, lastTrueAt: now }, transitions: ['pending'] };
    case 'pending': {
      if (!holds) return { next: { state: 'inactive' }, transitions: ['cleared'] };
      const activeAt = prev.activeAt ?? now;
      if (now - activeAt >= rule.forMs) {
        return {
          next: { state: 'firing', activeAt, firedAt: now, lastTrueAt: now },
          transitions: ['firing'],
        };
      }
      return { next: { ...prev, lastTrueAt: now }, transitions: [] };
    }
    case 'firing': {
      if (holds) return { next: { ...prev, lastTrueAt: now }, transitions: [] };
      if (rule.keepFiringForMs > 0 && now - (prev.lastTrueAt ?? now) < rule.keepFiringForMs) {
        return { next: prev, transitions: [] };
      }
      return { next: { state: 'inactive' }, transitions: ['resolved'] };
    }
  }
}
