import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { dynamicTool, jsonSchema, type ToolSet } from 'ai';
import { CLASSIFICATION_META_KEY } from '../mcp/withResilience.js';
import {
  classificationOf,
  createToolGuard,
  type GuardedClassification,
  type ToolGuardOptions,
} from './toolGuard.js';

export type { GuardedClassification, ToolGuardOptions } from './toolGuard.js';

/** What a tool wrapped by `resilientToolSet` resolves to when its call failed. */
export interface ToolFailureOutput {
  readonly isError: true;
  readonly content: readonly [{ readonly type: 'text'; readonly text: string }];
  readonly _meta: { readonly [CLASSIFICATION_META_KEY]: GuardedClassification };
}

/** Tools listed at most by `mcpToolSet` (pages × tools), so a misbehaving server cannot grow it without end. */
const MAX_LISTED_TOOLS = 10_000;

/**
 * Wraps the `execute` of every tool of an AI SDK tools record (`generateText({ tools })`): each call is
 * classified, retried when that can succeed and is safe, guarded by a breaker and budget, recorded, and an
 * identical repeat of a call that failed for good is answered without running the tool. A failure resolves to
 * an output the model reads, `{ isError: true, content: [{ type: 'text', text }], _meta }`: what failed, whether
 * calling again can help and when, and the classification. A caller's abort still rejects. The record keeps
 * its type; a tool's output may also be that failure object ({@link ToolFailureOutput}).
 */
export function resilientToolSet<T extends ToolSet>(tools: T, options: ToolGuardOptions = {}): T {
  const guard = createToolGuard(options);
  const wrapped: Record<string, unknown> = {};
  for (const [name, tool] of Object.entries(tools)) {
    const execute = tool.execute;
    if (typeof execute !== 'function') {
      wrapped[name] = tool;
      continue;
    }
    wrapped[name] = {
      ...tool,
      execute: async (input: unknown, context: Parameters<typeof execute>[1]) => {
        const outer = context?.abortSignal;
        const call = await guard(
          name,
          input,
          async (signal) =>
            execute(input as never, {
              ...context,
              abortSignal: signal, // the attempt's: aborts with the caller's, or at the attempt's time limit
            }),
          outer,
        );
        if (call.ok) return call.value;
        const failure: ToolFailureOutput = {
          isError: true,
          content: [{ type: 'text', text: call.text }],
          _meta: { [CLASSIFICATION_META_KEY]: classificationOf(call.error) },
        };
        return failure;
      },
    };
  }
  return wrapped as T;
}

/**
 * An AI SDK tools record from an MCP client's `tools/list` (every page), each tool's `execute` a `tools/call`
 * returning the `CallToolResult`. Give it a `withResilience` client so that calls are resilient.
 */
export async function mcpToolSet(client: Client, options: { signal?: AbortSignal } = {}): Promise<ToolSet> {
  const tools: ToolSet = {};
  let cursor: string | undefined;
  let listed = 0;
  do {
    const page = await client.listTools(cursor === undefined ? undefined : { cursor }, {
      ...(options.signal ? { signal: options.signal } : {}),
    });
    for (const t of page.tools) {
      if (++listed > MAX_LISTED_TOOLS)
        throw new Error(`mcpToolSet: the server lists more than ${MAX_LISTED_TOOLS} tools`);
      tools[t.name] = dynamicTool({
        description: t.description ?? '',
        inputSchema: jsonSchema(t.inputSchema as never),
        execute: (input, { abortSignal }) =>
          client.callTool({ name: t.name, arguments: input as Record<string, unknown> }, undefined, {
            ...(abortSignal ? { signal: abortSignal } : {}),
          }),
      });
    }
    cursor = page.nextCursor;
  } while (cursor);
  return tools;
}
