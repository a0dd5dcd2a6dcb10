import type { CallOptions } from '../../call/CallOptions.js';
import type { Settled } from './Settled.js';

/** A tool call as the stages see it: typed fields, never telemetry attributes read back. */
export interface StageCall {
  /** The server's name (the negative cache's key, a fallback's primary). */
  readonly server: string;
  readonly tool: string;
  /** The tool's arguments. */
  readonly arguments: unknown;
  /** The pipeline's options of the call, with its typed context (`variant`, `sessionId`, `routedFrom`). */
  readonly options: CallOptions;
  /** When the pipeline started the call. */
  readonly startedAt: number;
  /** Whether running the call again cannot do harm (a read-only or idempotent tool). */
  readonly safeToRepeat: boolean;
}

/**
 * One agent-loop feature around a tool call. `before` may answer the call without sending it; `after` may
 * settle it otherwise. Stages run in order before the call and in reverse order after it (the first is outermost).
 */
export interface Stage<C extends StageCall = StageCall> {
  before?(call: C): Settled | undefined;
  after?(call: C, settled: Settled): Settled | Promise<Settled>;
  /** The server's tools changed (`notifications/tools/list_changed`): what a call of them does may have too. */
  toolsChanged?(): void;
}

/** Runs the call through the stages: the first `before` answer ends it unsent; every `after` sees the outcome. */
export async function runStages<C extends StageCall>(
  stages: readonly Stage<C>[],
  call: C,
  send: () => Promise<Settled>,
): Promise<Settled> {
  for (const stage of stages) {
    const answered = stage.before?.(call);
    if (answered !== undefined) return answered;
  }
  let settled = await send();
  for (let i = stages.length - 1; i >= 0; i--) {
    const after = stages[i]?.after;
    if (after) settled = await after.call(stages[i], call, settled);
  }
  return settled;
}
