import type { FunctionRule } from '../classify/ClassificationRule.js';
import { mcpRules } from './mcpRules.js';
import type { HttpFailure } from './observeFetch.js';
import { hasSessions } from './sdkLine.js';

/** What the MCP rules learn about a failed attempt. */
interface Facts {
  readonly failures: readonly HttpFailure[];
  readonly sessionId: string | undefined;
  /** Whether the attempt ran on a protocol revision without sessions (2026-07-28 and later). */
  readonly sessionless: boolean;
}

/** The facts of failed attempts, keyed by the error each threw, and the MCP rules that read them. */
export class AttemptFacts {
  private readonly facts = new WeakMap<object, Facts>();

  /** The MCP rules, with the HTTP failures and the session of the attempt that threw. */
  readonly rules: FunctionRule[] = mcpRules({
    httpFailure: (error, status) =>
      this.of(error)
        ?.failures.filter((f) => f.status === status)
        .at(-1),
    hadSession: (error) => this.of(error)?.sessionId !== undefined,
    sessionless: (error) => this.of(error)?.sessionless === true,
  });

  /** Remembers what the attempt that threw `error` saw. */
  record(
    error: unknown,
    failures: readonly HttpFailure[],
    sessionId: string | undefined,
    version: string | undefined,
  ): void {
    if (typeof error !== 'object' || error === null) return;
    this.facts.set(error, { failures, sessionId, sessionless: !hasSessions(version) });
  }

  private of(error: unknown): Facts | undefined {
    return this.facts.get(error as object);
  }
}
