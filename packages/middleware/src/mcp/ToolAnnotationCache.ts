import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';

/**
 * The annotations of a server's tools, as last seen in a `tools/list` result. Stale after
 * `notifications/tools/list_changed` until the next listing.
 */
export class ToolAnnotationCache {
  private readonly tools = new Map<string, ToolAnnotations>();
  /** Set by `notifications/tools/list_changed` and by a reconnect. */
  stale = true;
  private nextTry = 0;

  /** Whether to list the tools now: they are stale and no listing was tried in the last 30 s. */
  needsRefresh(now: number): boolean {
    return this.stale && now >= this.nextTry;
  }

  refreshing(now: number): void {
    this.nextTry = now + 30_000;
  }

  /** Records a `tools/list` page (pages after the first add to it). */
  update(result: unknown, firstPage: boolean): void {
    const tools = (result as { tools?: unknown })?.tools;
    if (!Array.isArray(tools)) return;
    if (firstPage) this.tools.clear();
    for (const tool of tools) {
      if (tool && typeof tool.name === 'string') this.tools.set(tool.name, tool.annotations ?? {});
    }
    this.stale = false;
  }

  /** True when the tool says it is read-only or idempotent. MCP's defaults (destructive, not idempotent) otherwise. */
  isSafeToRepeat(tool: string): boolean {
    const annotations = this.tools.get(tool);
    return annotations?.readOnlyHint === true || annotations?.idempotentHint === true;
  }

  has(tool: string): boolean {
    return this.tools.has(tool);
  }
}
