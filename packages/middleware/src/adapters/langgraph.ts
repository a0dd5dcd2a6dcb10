import { type AIMessage, type BaseMessage, isAIMessage, ToolMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { DynamicStructuredTool, type StructuredToolInterface } from '@langchain/core/tools';
import { CLASSIFICATION_META_KEY } from '../mcp/withResilience.js';
import { classificationOf, createToolGuard, type ToolGuard, type ToolGuardOptions } from './toolGuard.js';

export type { GuardedClassification, ToolGuardOptions } from './toolGuard.js';

/** LangGraph's `Command` (what its `isCommand` checks; duck-typed, so LangGraph stays an optional peer). */
function isCommand(value: unknown): value is { readonly graph?: unknown; readonly goto?: unknown } {
  return (
    typeof value === 'object' &&
    value !== null &&
    Object.getPrototypeOf(value) !== Object.prototype &&
    Object.getPrototypeOf(value) !== null &&
    (value as { lg_name?: unknown }).lg_name === 'Command'
  );
}

/** A `Send` (what `goto` of a parent `Command` holds when it fans out). */
const isSend = (value: unknown) =>
  typeof value === 'object' && value !== null && (value as { lg_name?: unknown }).lg_name === 'Send';

/** The error a resilient tool throws when its call failed: the message is the sentence for the model. */
export class ResilientToolError extends Error {
  override readonly name = 'ResilientToolError';
  constructor(
    message: string,
    readonly classification: ReturnType<typeof classificationOf>,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * Makes LangChain tools resilient (any `StructuredTool`, the tools of `@langchain/mcp-adapters` included): each
 * call is classified, retried when that can succeed and is safe, guarded by a breaker and budget, recorded, and
 * an identical repeat of a call that failed for good is refused without running the tool. A failure throws a
 * `ResilientToolError` whose message tells the model what failed and whether calling again can help (LangGraph's
 * `ToolNode` turns it into an error `ToolMessage`; `resilientToolNode` also keeps the classification).
 */
export function resilientTools<T extends StructuredToolInterface>(
  tools: readonly T[],
  options: ToolGuardOptions = {},
): DynamicStructuredTool[] {
  const guard = createToolGuard(options);
  return tools.map(
    (tool) =>
      new DynamicStructuredTool({
        name: tool.name,
        description: tool.description,
        schema: tool.schema as never,
        func: async (args: unknown, _runManager, config?: RunnableConfig) => {
          const call = await guard(
            tool.name,
            args,
            (signal) => tool.invoke(args as never, { ...config, signal }),
            config?.signal,
            config?.timeout,
          );
          if (call.ok) return call.value as never;
          throw new ResilientToolError(call.text, classificationOf(call.error), { cause: call.error });
        },
      }),
  );
}

/**
 * A LangGraph tool node (the TypeScript counterpart of a resilient `ToolNode`): runs the tool calls of the last
 * AI message through the resilience pipeline and answers each with a `ToolMessage`; a failure of any kind
 * (non-retryable, breaker open, rate limited, budget or retries exhausted, an unknown tool) becomes a
 * `ToolMessage` with `status: 'error'`, the sentence the model can act on as content, and the classification
 * as `artifact`. It never sleeps in the graph: by default a call gets one attempt (`maxAttempts: 1`), a
 * conditional failure tells the model when to call again instead of waiting; give the MCP client its own
 * retries with `withResilience` (short ones, with `breakerWait: false`, or the client sleeps inside the node).
 *
 * LangGraph's control flow passes through as in its `ToolNode`: an `interrupt()` in a tool (and any other
 * bubble-up error) is thrown to the graph, not answered nor counted as a failure; a tool returning a `Command`
 * has it returned (in call order with the other calls' messages, each as `{ messages: [message] }`). A tool finds the id of its
 * call as `config.toolCallId`, as under `ToolNode`.
 */
export function resilientToolNode(tools: readonly StructuredToolInterface[], options: ToolGuardOptions = {}) {
  const guard = createToolGuard(options, options.resilience ? {} : { retry: { maxAttempts: 1 } });
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  return async function tools_(
    state: { messages: readonly BaseMessage[] },
    config?: RunnableConfig,
  ): Promise<{ messages: ToolMessage[] } | unknown[]> {
    const last = state.messages.at(-1);
    const calls = last && isAIMessage(last) ? (last.tool_calls ?? []) : [];
    const outputs = await Promise.all(calls.map((call) => answerToolCall(guard, byName, call, config)));
    if (!outputs.some(isCommand)) return { messages: outputs as ToolMessage[] };
    return combineCommands(outputs);
  };
}

type ToolCallOf = NonNullable<AIMessage['tool_calls']>[number];

/** One tool call of the AI message, run through the guard: a `ToolMessage` (or the tool's `Command`). */
async function answerToolCall(
  guard: ToolGuard,
  byName: ReadonlyMap<string, StructuredToolInterface>,
  call: ToolCallOf,
  config: RunnableConfig | undefined,
): Promise<unknown> {
  const id = call.id ?? '';
  const tool = byName.get(call.name);
  if (!tool) {
    return new ToolMessage({
      tool_call_id: id,
      name: call.name,
      status: 'error',
      content: `Tool '${call.name}' does not exist; call one of: ${[...byName.keys()].join(', ')}.`,
    });
  }
  const result = await guard(
    call.name,
    call.args,
    (signal) => tool.invoke(call.args as never, { ...config, signal, toolCallId: id } as RunnableConfig),
    config?.signal,
    config?.timeout,
  );
  if (result.ok) {
    const value = result.value as unknown;
    if (ToolMessage.isInstance(value) || isCommand(value)) return value;
    return new ToolMessage({
      tool_call_id: id,
      name: call.name,
      content: typeof value === 'string' || Array.isArray(value) ? (value as never) : JSON.stringify(value),
    });
  }
  return new ToolMessage({
    tool_call_id: id,
    name: call.name,
    status: 'error',
    content: result.text,
    artifact: { [CLASSIFICATION_META_KEY]: classificationOf(result.error), repeat: result.repeat },
  });
}

/**
 * As LangGraph's ToolNode: each Command as it is, each message in its own update, and the parent Commands that
 * fan out (`goto` of `Send`s) merged into one.
 */
function combineCommands(outputs: readonly unknown[]): unknown[] {
  const combined: unknown[] = [];
  let parent: { graph: unknown; goto: unknown[] } | undefined;
  for (const output of outputs) {
    if (!isCommand(output)) combined.push({ messages: [output] });
    else if (output.graph === '__parent__' && Array.isArray(output.goto) && output.goto.every(isSend)) {
      if (parent) parent.goto.push(...output.goto);
      else {
        const Command = output.constructor as new (init: object) => { graph: unknown; goto: unknown[] };
        parent = new Command({ graph: output.graph, goto: [...output.goto] });
      }
    } else combined.push(output);
  }
  if (parent) combined.push(parent);
  return combined;
}
