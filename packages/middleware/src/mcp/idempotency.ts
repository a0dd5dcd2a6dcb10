import { IDEMPOTENT_METHODS, READ_ONLY_METHODS } from './methods.js';
import type { ToolAnnotationCache } from './ToolAnnotationCache.js';

export type IdempotencyMode = 'annotations' | 'assume-idempotent' | 'never';

export interface IdempotencyPolicy {
  /** Whether a request may be repeated after a failure that may have executed (timeout, reset, 5xx). */
  isSafe(method: string, tool: string | undefined): boolean;
  /** Whether deciding for this request needs the tools' annotations. */
  needsAnnotations(method: string, tool: string | undefined): boolean;
}

/**
 * How `withResilience` decides whether a request is safe to repeat, in order:
 * 1. read-only MCP methods (`tools/list`, `resources/read`, `prompts/get`, `ping`, ...) and idempotent ones
 *    (`logging/setLevel`, `resources/subscribe`, ...) always are;
 * 2. a `tools/call` of a tool in `overrides` is what the override says;
 * 3. `'annotations'`: a tool whose `tools/list` annotations say `readOnlyHint` or `idempotentHint`; an unannotated
 *    or unknown tool is not (MCP's defaults: destructive, not idempotent);
 *    `'assume-idempotent'`: every tool; `'never'`: no tool;
 * 4. any other method (`tasks/*` that create, custom methods) is not.
 */
export function idempotencyPolicy(
  mode: IdempotencyMode,
  overrides: Readonly<Record<string, boolean>> | undefined,
  annotations: ToolAnnotationCache,
): IdempotencyPolicy {
  const override = (tool: string) => (Object.hasOwn(overrides ?? {}, tool) ? overrides?.[tool] : undefined);
  return {
    isSafe(method, tool) {
      if (READ_ONLY_METHODS.has(method) || IDEMPOTENT_METHODS.has(method)) return true;
      if (method !== 'tools/call' || tool === undefined) return false;
      const given = override(tool);
      if (given !== undefined) return given;
      if (mode === 'annotations') return annotations.isSafeToRepeat(tool);
      return mode === 'assume-idempotent';
    },
    needsAnnotations(method, tool) {
      return (
        mode === 'annotations' &&
        method === 'tools/call' &&
        tool !== undefined &&
        override(tool) === undefined
      );
    },
  };
}
