import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { MCPServer } from '@openai/agents';
import { CLASSIFICATION_META_KEY } from '../mcp/withResilience.js';
import { classificationOf, createToolGuard, type ToolGuardOptions } from './toolGuard.js';

export type { GuardedClassification, ToolGuardOptions } from './toolGuard.js';

type CallToolResultOf = (...args: unknown[]) => Promise<CallToolResult>;

/**
 * Makes an OpenAI Agents JS MCP server object (`MCPServerStdio`, `MCPServerStreamableHttp`, `MCPServerSSE`, or
 * any `MCPServer`) resilient: its tool calls are classified, retried when that can succeed and is safe, guarded
 * by a breaker and budget, recorded, and an identical repeat of a call that failed for good is answered without
 * a request. A failure of any kind resolves to an `isError` result whose text (what the model reads) says what
 * failed and whether calling again can help, with the classification in `_meta`. Everything else (connect,
 * listTools, close, name, filters) is the server's own. The `server` option defaults to the server's `name`.
 */
export function resilientMcpServer<S extends MCPServer>(server: S, options: ToolGuardOptions = {}): S {
  const guard = createToolGuard(options, { guard: { server: server.name } });
  const callToolResult = async (
    toolName: string,
    args: unknown,
    meta?: unknown,
    callOptions?: { signal?: AbortSignal },
  ) => {
    const own = (server as unknown as { callToolResult?: CallToolResultOf }).callToolResult;
    const call = await guard(
      toolName,
      args ?? {},
      (signal) => {
        const merged = { ...callOptions, signal }; // the attempt's: aborts with the caller's too
        return own
          ? own.call(server, toolName, args, meta, merged)
          : server
              .callTool(toolName, args as never, meta as never)
              .then((content) => ({ content }) as CallToolResult);
      },
      callOptions?.signal,
    );
    if (call.ok) return call.value;
    return {
      content: [{ type: 'text', text: call.text }],
      isError: true,
      _meta: { [CLASSIFICATION_META_KEY]: classificationOf(call.error) },
    } satisfies CallToolResult;
  };
  return new Proxy(server, {
    get(target, property, receiver) {
      if (property === 'callToolResult') return callToolResult;
      if (property === 'callTool') {
        return async (
          toolName: string,
          args: unknown,
          meta?: unknown,
          callOptions?: { signal?: AbortSignal },
        ) => (await callToolResult(toolName, args, meta, callOptions)).content;
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
