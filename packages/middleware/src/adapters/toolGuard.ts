import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { CallOptions } from '../call/CallOptions.js';
import type { Classification, ErrorType } from '../classify/Classification.js';
import type { ClassificationRule, FunctionRule } from '../classify/ClassificationRule.js';
import { classifyError } from '../classify/classifyError.js';
import { createResilience, type Resilience } from '../createResilience.js';
import { isResilienceError, type ResilienceError } from '../errors/ResilienceError.js';
import { callVariant } from '../experiment/callVariant.js';
import type { NegativeCacheOptions } from '../mcp/McpResilienceOptions.js';
import { mcpRules } from '../mcp/mcpRules.js';
import { nonRetryableText } from '../mcp/nonRetryableResult.js';
import { outcomeText, terminalOutcome } from '../mcp/outcomeResult.js';
import { type NegativeCacheSettings, negativeCache } from '../mcp/stages/negativeCache.js';
import { failed, type Settled } from '../mcp/stages/Settled.js';
import { runStages, type StageCall } from '../mcp/stages/Stage.js';
import { ToolResultError } from '../mcp/ToolResultError.js';
import { coreFromFlat, guardFromFlat, TOP_LEVEL_NAMES } from '../options/fromFlat.js';
import { mergeGroups } from '../options/mergeGroups.js';
import { GUARD_PATHS } from '../options/optionPaths.js';
import { isPlainObject, readOptions } from '../options/readOptions.js';
import {
  idempotency,
  negativeCacheChecks,
  nonEmptyString,
  sharedPipelineError,
} from '../options/toolChecks.js';
import { refuseUnknownNames } from '../options/unknownOption.js';
import type { ResilienceOptions } from '../options.js';
import { ATTR_GEN_AI_TOOL_NAME, ATTR_MCP_METHOD_NAME, ATTR_MCP_RESILIENCE_SERVER } from '../otel/semconv.js';

/** `guard.idempotency`: which tools are safe to repeat after a failure that may have run (timeout, reset). */
export type GuardIdempotency =
  | 'always'
  | 'never'
  | { readonly default?: 'always' | 'never'; readonly tools: Readonly<Record<string, boolean>> };

/** The `guard` group of the framework adapters. All optional. */
export interface GuardOptions {
  /** The name the tools' calls are recorded under (`mcp.resilience.server`, breaker and budget key). Default `'tools'`. */
  readonly server?: string;
  /** Default `'never'`: only failures that certainly did not run are retried. */
  readonly idempotency?: GuardIdempotency;
  /** As in `withResilience`: an identical call that failed for good is answered without running. */
  readonly negativeCache?: NegativeCacheOptions;
}

/** Options of the framework adapters: the core groups, the `guard` group, or a shared `resilience`. */
export interface ToolGuardOptions extends ResilienceOptions {
  readonly guard?: GuardOptions;
  /** Share one pipeline (breakers, budgets, telemetry); core options must then be given to it, not here. */
  readonly resilience?: Resilience;
  /** Flat name of `guard.server`, still accepted for now. */
  readonly server?: string;
  /** Flat form of `guard.idempotency` (`true`: `'always'`; by tool: `{ tools }`), still accepted for now. */
  readonly idempotent?: boolean | Readonly<Record<string, boolean>>;
  /** Flat names of `guard.negativeCache.*`, still accepted for now. */
  readonly negativeCacheTtlMs?: number;
  readonly negativeCacheMaxEntries?: number;
  readonly negativeCacheTypes?: readonly ErrorType[];
}

const OWNER = 'resilient tools';

const GUARD_CHECKS = {
  server: nonEmptyString,
  idempotency: idempotency('always', 'never'),
  ...negativeCacheChecks,
};

/** How a guarded tool call ended: its value, or a failure with the sentence the model should read. */
export type GuardedCall<T> =
  | { readonly ok: true; readonly value: T }
  | {
      readonly ok: false;
      readonly error: ResilienceError;
      /** What failed, whether calling again can help, and when: for the model. */
      readonly text: string;
      /** True when the answer came from the negative cache: the tool did not run. */
      readonly repeat: boolean;
    };

/** The classification a guarded failure carries, as adapters expose it (`_meta`, artifact, output). */
export type GuardedClassification = Classification & { readonly attempts: number; readonly reason: string };

/** The MCP rules without HTTP facts: they classify `isError` results from their text, and MCP errors. */
const mcp = mcpRules();

/**
 * `@langchain/mcp-adapters` throws a `ToolException` for an MCP result with `isError`: the tool ran and failed.
 * Classified as that result would be (from its text), so every adapter agrees on a tool's failures.
 */
const toolException: FunctionRule = (error, context) => {
  if ((error as { name?: unknown } | null)?.name !== 'ToolException') return undefined;
  const text = / returned an error: ([\s\S]*)$/.exec(String((error as Error).message ?? ''))?.[1];
  if (text === undefined) return undefined;
  const result = { content: [{ type: 'text' as const, text }], isError: true };
  return classifyError(new ToolResultError(result), { ...context, rules: mcp });
};

/**
 * A framework's control-flow signal thrown through a tool, not a failure of it: LangGraph's `GraphInterrupt`
 * (`interrupt()` in a tool, human-in-the-loop), `NodeInterrupt` and `ParentCommand` all carry
 * `is_bubble_up === true` (what LangGraph's own `isGraphBubbleUp` checks; duck-typed, so LangGraph stays optional).
 */
export function isBubbleUp(error: unknown): boolean {
  return (
    typeof error === 'object' && error !== null && (error as { is_bubble_up?: unknown }).is_bubble_up === true
  );
}

/** The sentence a model reads for a failed call. */
export function failureText(error: ResilienceError, tool: string): string {
  if (error.classification.class === 'non_retryable') {
    return nonRetryableText(error.classification, error.attempts, tool);
  }
  const outcome = terminalOutcome(error);
  if (outcome !== undefined) return outcomeText(outcome, error, tool);
  return `Tool '${tool}' failed (${error.classification.type}): ${error.classification.message ?? 'no detail'}; it was not retried.`;
}

/** The classification a failure is exposed with. */
export function classificationOf(error: ResilienceError): GuardedClassification {
  return { ...error.classification, attempts: error.attempts, reason: error.reason };
}

/**
 * Runs framework tool calls through the resilience pipeline: classified, retried when that can succeed and is safe,
 * guarded by a breaker and budget, recorded; an identical repeat of a call that failed for good is answered from
 * a negative cache without running the tool. An MCP-shaped `{ isError: true }` value counts as a failure.
 * Never throws for a tool failure: it returns it with the sentence for the model (a caller's abort rethrows,
 * and so does a framework's bubble-up signal, see `isBubbleUp`). A successful call of a tool not declared
 * idempotent clears the negative cache (it may have changed what other calls return), as `withResilience` does.
 */
/** Attempts per tool call in the adapters unless `maxAttempts` says otherwise (`breakerWait` is off there too). */
export const TOOL_MAX_ATTEMPTS = 3;

export function createToolGuard(options: ToolGuardOptions = {}, defaults: ToolGuardOptions = {}) {
  if (isPlainObject(options)) refuseUnknownNames(OWNER, options, TOP_LEVEL_NAMES.guard);
  const given = mergeGroups(defaults, guardFromFlat(OWNER, coreFromFlat(OWNER, options)));
  const { guard, resilience: shared, ...core } = given;
  const read = readOptions(OWNER, { guard }, GUARD_PATHS, GUARD_CHECKS) as {
    server?: string;
    idempotency?: GuardIdempotency;
  } & NegativeCacheSettings;
  const sharedError = shared === undefined ? undefined : sharedPipelineError(OWNER, core);
  if (sharedError) throw sharedError;
  const server = read.server ?? 'tools';
  // The model is a retry layer on top of the tool (it calls again after an error): the tool keeps LangGraph's
  // 3 attempts rather than the core's default, and at an open breaker it answers at once ("unavailable, try
  // again in about N s") instead of holding the agent at the gate, so the two layers do not multiply.
  const toolDefaults: ToolGuardOptions = { retry: { maxAttempts: TOOL_MAX_ATTEMPTS }, gate: { wait: false } };
  const resilience = shared ?? createResilience(mergeGroups(toolDefaults, { ...core, rules: [] }));
  const rules: ClassificationRule[] = [...(core.rules ?? []), toolException, ...mcp];
  // The same negative-cache stage as `withResilience`: a success of a tool not declared idempotent forgets.
  const stages = [negativeCache(read, resilience)];
  const safe = isSafe(read.idempotency ?? 'never');

  return async function run<T>(
    tool: string,
    args: unknown,
    invoke: (signal: AbortSignal) => Promise<T>,
    signal?: AbortSignal,
    /** The framework's time limit of the call (LangGraph's `config.timeout`), when it has one. */
    timeoutMs?: number,
  ): Promise<GuardedCall<T>> {
    const call = guardedCall(server, tool, args, safe(tool), rules, signal, timeoutMs);
    // In an experiment, the variant is drawn first: one arm's cached failures never answer the other's repeats.
    const variant = callVariant(resilience, call.options);
    if (variant !== undefined) call.options = { ...call.options, variant };
    const settled = await runStages(stages, call, () => sendGuarded(resilience, call, invoke));
    if (settled.kind === 'value') return { ok: true, value: settled.value as T };
    const { error } = settled;
    return { ok: false, error, text: failureText(error, tool), repeat: settled.repeat === true };
  };
}

/**
 * The pipeline's attempts of a guarded call. A bubble-up signal (a LangGraph interrupt) leaves the pipeline as a
 * value, so it is not classified, retried, cached or counted as a failure, and is thrown again to the framework.
 */
async function sendGuarded<T>(
  resilience: Resilience,
  call: GuardCall,
  invoke: (signal: AbortSignal) => Promise<T>,
): Promise<Settled> {
  let bubbled: { readonly error: unknown } | undefined;
  call.startedAt = resilience.options.clock.now();
  try {
    const value = await resilience.execute(async (context) => {
      try {
        return checked(await invoke(context.signal));
      } catch (error) {
        if (!isBubbleUp(error)) throw error;
        bubbled = { error };
        return undefined as T;
      }
    }, call.options);
    if (bubbled) throw bubbled.error;
    return { kind: 'value', value, changedState: !call.safeToRepeat };
  } catch (error) {
    if (bubbled) throw bubbled.error;
    if (isResilienceError(error) && error.reason !== 'aborted') return failed(error);
    throw error;
  }
}

/** An MCP-shaped `{ isError: true }` value is a failure of the tool. */
function checked<T>(result: T): T {
  if ((result as CallToolResult | null)?.isError === true)
    throw new ToolResultError(result as CallToolResult);
  return result;
}

/** A guarded tool call as the stages see it, with its pipeline options. */
type GuardCall = StageCall & { options: CallOptions; startedAt: number };

/** The stage view and the pipeline options of one guarded call. */
function guardedCall(
  server: string,
  tool: string,
  args: unknown,
  safeToRepeat: boolean,
  rules: readonly ClassificationRule[],
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
): GuardCall {
  const options: CallOptions = {
    endpoint: server,
    operation: 'tools/call',
    attributes: {
      [ATTR_MCP_RESILIENCE_SERVER]: server,
      [ATTR_MCP_METHOD_NAME]: 'tools/call',
      [ATTR_GEN_AI_TOOL_NAME]: tool,
    },
    endpointAttributes: { [ATTR_MCP_RESILIENCE_SERVER]: server },
    idempotent: safeToRepeat,
    rules,
    ...(signal ? { signal } : {}),
    ...(typeof timeoutMs === 'number' && Number.isFinite(timeoutMs) && timeoutMs >= 0 ? { timeoutMs } : {}),
  };
  return { server, tool, arguments: args, options, startedAt: 0, safeToRepeat };
}

export type ToolGuard = ReturnType<typeof createToolGuard>;

/** Whether a tool is safe to repeat under `guard.idempotency`. */
function isSafe(idempotency: GuardIdempotency): (tool: string) => boolean {
  if (typeof idempotency === 'string') return () => idempotency === 'always';
  const { tools, default: others = 'never' } = idempotency;
  return (tool) => (Object.hasOwn(tools, tool) ? tools[tool] === true : others === 'always');
}
