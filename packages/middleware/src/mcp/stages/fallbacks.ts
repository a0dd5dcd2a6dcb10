import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Resilience } from '../../createResilience.js';
import { isResilienceError } from '../../errors/ResilienceError.js';
import { guardedEmit } from '../../record/guardedEmit.js';
import { type FallbackTarget, fallbackRouter, shouldFallBack } from '../fallback.js';
import type { RequestArgs } from '../sdkLine.js';
import type { CallToolResult } from '../ToolResultError.js';
import { failed } from './Settled.js';
import type { Stage, StageCall } from './Stage.js';

/** A tool call with the MCP request it was made with: what a fallback server is sent. */
export interface McpStageCall extends StageCall {
  readonly request: { method: string; params?: Record<string, unknown> };
  readonly sdkArgs: RequestArgs;
}

/**
 * Fallback servers: a failed call that should go elsewhere ({@link shouldFallBack}) is sent to the first fallback
 * that lists the tool. Its answer settles the call; when every fallback fails, the last one's failure does,
 * marked as a fallback's (the negative cache keeps only this server's verdicts). `wrap` makes a fallback resilient.
 */
export function fallbacks(
  targets: readonly FallbackTarget[],
  resilience: Resilience,
  wrap: (client: Client, server: string) => Client,
): Stage<McpStageCall> {
  const { clock, recorder } = resilience.options;
  const route = fallbackRouter(targets, wrap, guardedEmit(recorder), () => clock.now());
  return {
    async after(call, settled) {
      if (settled.kind !== 'failed' || !shouldFallBack(settled.error, call.safeToRepeat)) return settled;
      const routed = await route({
        request: call.request,
        sdkArgs: call.sdkArgs,
        tool: call.tool,
        primary: call.server,
        options: call.options,
        cause: settled.error,
      });
      if (routed.kind === 'value') {
        // The tool ran on the fallback: a success of a tool that is not read-only may have changed the state.
        const succeeded = (routed.value as CallToolResult | undefined)?.isError !== true;
        return { kind: 'value', value: routed.value, changedState: succeeded && !routed.readOnly };
      }
      if (routed.kind === 'failed' && isResilienceError(routed.error)) return failed(routed.error, true);
      return settled;
    },
  };
}
