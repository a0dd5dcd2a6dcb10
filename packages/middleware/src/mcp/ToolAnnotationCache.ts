import { isResilienceError } from '../errors/ResilienceError.js';
import type { TransportLike } from './McpClientLike.js';

/** A tool's annotations from `tools/list` (the hints read here), as both SDK lines return them. */
interface ToolAnnotations {
  readonly readOnlyHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly [key: string]: unknown;
}

/** After a listing the server refused (no `tools/list`), the tools are not listed again for this long. */
const RETRY_REFUSED_LISTING_MS = 30_000;
/** After a listing that failed otherwise (server down, breaker open), for this long. */
const RETRY_FAILED_LISTING_MS = 2_000;

/**
 * The annotations of a server's tools, as last seen in a `tools/list` result. Stale at first, after
 * `notifications/tools/list_changed` and after a reconnect, until the next complete listing.
 */
export class ToolAnnotationCache {
  private readonly tools = new Map<string, ToolAnnotations>();
  private isStale = true;
  private nextTry = 0;
  private pending: Map<string, ToolAnnotations> | undefined;
  private refreshing: Promise<void> | undefined;
  private readonly watched = new WeakSet<TransportLike>();

  get stale(): boolean {
    return this.isStale;
  }

  /** The tools changed (`notifications/tools/list_changed`, reconnect): list them again before the next call. */
  markStale(): void {
    this.isStale = true;
    this.nextTry = 0;
  }

  /** Whether to list the tools now: they are stale, and no listing failed just before. */
  needsRefresh(now: number): boolean {
    return this.isStale && now >= this.nextTry;
  }

  /**
   * A listing failed: the last known annotations (or the MCP defaults) apply until the next try, in 30 s when the
   * server refused it (`refused`: a non-retryable failure), else in 2 s.
   */
  refreshFailed(now: number, refused: boolean): void {
    this.nextTry = now + (refused ? RETRY_REFUSED_LISTING_MS : RETRY_FAILED_LISTING_MS);
  }

  /**
   * Records a `tools/list` page. The first page (no `cursor` asked) starts a new listing; the listing replaces
   * the cache when its last page (no `nextCursor`) arrives.
   */
  update(result: unknown, firstPage: boolean): void {
    const tools = (result as { tools?: unknown } | undefined)?.tools;
    if (!Array.isArray(tools)) return;
    if (firstPage || this.pending === undefined) this.pending = new Map();
    for (const tool of tools) {
      if (tool && typeof tool.name === 'string') this.pending.set(tool.name, tool.annotations ?? {});
    }
    if ((result as { nextCursor?: unknown }).nextCursor) return;
    this.tools.clear();
    for (const [name, annotations] of this.pending) this.tools.set(name, annotations);
    this.pending = undefined;
    this.isStale = false;
  }

  /** The tool's annotations, `undefined` for a tool not (yet) listed. */
  get(tool: string): ToolAnnotations | undefined {
    return this.tools.get(tool);
  }

  /**
   * True when the annotations say the tool is read-only or idempotent. An unknown or unannotated tool gets MCP's
   * defaults: not read-only, destructive, not idempotent.
   */
  isSafeToRepeat(tool: string): boolean {
    const annotations = this.tools.get(tool);
    return annotations?.readOnlyHint === true || annotations?.idempotentHint === true;
  }

  /**
   * Lists the tools (every page, through `listPage`) once at a time. A failed listing leaves the last known
   * annotations (or MCP's defaults: not idempotent) in place until the next try; never rejects.
   */
  refresh(
    listPage: (cursor: string | undefined) => Promise<{ nextCursor?: string | undefined }>,
    now: () => number,
  ): Promise<void> {
    this.refreshing ??= (async () => {
      try {
        let cursor: string | undefined;
        do cursor = (await listPage(cursor)).nextCursor;
        while (cursor);
      } catch (error) {
        this.refreshFailed(now(), isResilienceError(error) && error.classification.class === 'non_retryable');
      } finally {
        this.refreshing = undefined;
      }
    })();
    return this.refreshing;
  }

  /**
   * Marks the annotations stale when the server says its tools changed (and calls `onChanged`), once per
   * transport. It wraps the transport's `onmessage` (before `connect`, the SDK chains it; after, it wraps the
   * SDK's), so that it survives the handlers the SDK or the caller set with `setNotificationHandler`.
   */
  watch(transport: TransportLike | undefined, onChanged: () => void): void {
    if (!transport || this.watched.has(transport)) return;
    this.watched.add(transport);
    const previous = transport.onmessage;
    transport.onmessage = ((message, extra) => {
      if ((message as { method?: unknown }).method === 'notifications/tools/list_changed') {
        this.markStale();
        onChanged();
      }
      previous?.call(transport, message, extra);
    }) as TransportLike['onmessage'];
  }
}
