import { describe, expect, it } from 'vitest';
import { idempotencyPolicy } from './idempotency.js';
import { IDEMPOTENT_METHODS, READ_ONLY_METHODS } from './methods.js';
import { ToolAnnotationCache } from './ToolAnnotationCache.js';

const listing = {
  tools: [
    { name: 'get_weather', annotations: { readOnlyHint: true } },
    { name: 'search', annotations: { idempotentHint: true } },
    { name: 'create_ticket', annotations: { destructiveHint: true } },
    { name: 'explicitly_unsafe', annotations: { readOnlyHint: false, idempotentHint: false } },
    { name: 'unannotated' },
  ],
};

function cache() {
  const annotations = new ToolAnnotationCache();
  annotations.update(listing, true);
  return annotations;
}

describe('idempotency', () => {
  it("'annotations': read-only or idempotent tools are safe; destructive, unannotated and unknown ones are not", () => {
    const policy = idempotencyPolicy('annotations', undefined, cache());
    expect(policy.isSafe('tools/call', 'get_weather')).toBe(true);
    expect(policy.isSafe('tools/call', 'search')).toBe(true);
    expect(policy.isSafe('tools/call', 'create_ticket')).toBe(false);
    expect(policy.isSafe('tools/call', 'explicitly_unsafe')).toBe(false);
    expect(policy.isSafe('tools/call', 'unannotated')).toBe(false);
    expect(policy.isSafe('tools/call', 'never_listed')).toBe(false);
    expect(policy.isSafe('tools/call', undefined)).toBe(false);
  });

  it("'assume-idempotent' and 'never'", () => {
    const assume = idempotencyPolicy('assume-idempotent', undefined, cache());
    expect(assume.isSafe('tools/call', 'create_ticket')).toBe(true);
    expect(assume.isSafe('tools/call', 'never_listed')).toBe(true);
    const never = idempotencyPolicy('never', undefined, cache());
    expect(never.isSafe('tools/call', 'get_weather')).toBe(false);
  });

  it('per-tool overrides win over annotations and modes, both ways', () => {
    const overrides = { get_weather: false, create_ticket: true };
    const annotations = idempotencyPolicy('annotations', overrides, cache());
    expect(annotations.isSafe('tools/call', 'get_weather')).toBe(false);
    expect(annotations.isSafe('tools/call', 'create_ticket')).toBe(true);
    expect(idempotencyPolicy('never', overrides, cache()).isSafe('tools/call', 'create_ticket')).toBe(true);
    expect(
      idempotencyPolicy('assume-idempotent', overrides, cache()).isSafe('tools/call', 'get_weather'),
    ).toBe(false);
    // An inherited property is not an override.
    expect(idempotencyPolicy('annotations', {}, cache()).isSafe('tools/call', 'toString')).toBe(false);
  });

  it('read-only and idempotent MCP methods are always safe, whatever the mode; others never', () => {
    for (const mode of ['annotations', 'assume-idempotent', 'never'] as const) {
      const policy = idempotencyPolicy(mode, undefined, new ToolAnnotationCache());
      for (const method of [...READ_ONLY_METHODS, ...IDEMPOTENT_METHODS])
        expect(policy.isSafe(method, undefined)).toBe(true);
      expect(policy.isSafe('tasks/cancel', undefined)).toBe(false);
      expect(policy.isSafe('x-vendor/do', undefined)).toBe(false);
    }
    expect(READ_ONLY_METHODS).toContain('resources/read');
    expect(READ_ONLY_METHODS).toContain('prompts/get');
  });

  it('needs the annotations only for tools/call in annotations mode without an override', () => {
    const policy = idempotencyPolicy('annotations', { search: true }, cache());
    expect(policy.needsAnnotations('tools/call', 'get_weather')).toBe(true);
    expect(policy.needsAnnotations('tools/call', 'search')).toBe(false);
    expect(policy.needsAnnotations('tools/list', undefined)).toBe(false);
    expect(idempotencyPolicy('never', undefined, cache()).needsAnnotations('tools/call', 'x')).toBe(false);
  });
});

describe('ToolAnnotationCache', () => {
  it('is stale until a complete listing, and after list_changed', () => {
    const annotations = new ToolAnnotationCache();
    expect(annotations.stale).toBe(true);
    expect(annotations.needsRefresh(0)).toBe(true);
    annotations.update(listing, true);
    expect(annotations.stale).toBe(false);
    expect(annotations.needsRefresh(0)).toBe(false);
    annotations.markStale();
    expect(annotations.needsRefresh(0)).toBe(true);
    // The last known annotations still apply until the next listing.
    expect(annotations.isSafeToRepeat('get_weather')).toBe(true);
  });

  it('merges pages, and replaces the cache when the last page arrives', () => {
    const annotations = new ToolAnnotationCache();
    annotations.update(listing, true);
    annotations.markStale();
    annotations.update(
      { tools: [{ name: 'a', annotations: { readOnlyHint: true } }], nextCursor: 'p2' },
      true,
    );
    expect(annotations.stale).toBe(true);
    expect(annotations.isSafeToRepeat('get_weather')).toBe(true); // not replaced yet
    annotations.update({ tools: [{ name: 'b', annotations: { idempotentHint: true } }] }, false);
    expect(annotations.stale).toBe(false);
    expect(annotations.isSafeToRepeat('a')).toBe(true);
    expect(annotations.isSafeToRepeat('b')).toBe(true);
    expect(annotations.isSafeToRepeat('get_weather')).toBe(false); // gone from the server
    expect(annotations.get('b')).toEqual({ idempotentHint: true });
  });

  it('waits before listing again after a failure: 2 s, or 30 s when the server refused', () => {
    const annotations = new ToolAnnotationCache();
    annotations.refreshFailed(1_000, false);
    expect(annotations.needsRefresh(2_999)).toBe(false);
    expect(annotations.needsRefresh(3_000)).toBe(true);
    annotations.refreshFailed(1_000, true);
    expect(annotations.needsRefresh(30_999)).toBe(false);
    expect(annotations.needsRefresh(31_000)).toBe(true);
    annotations.markStale(); // list_changed: list at once
    expect(annotations.needsRefresh(1_000)).toBe(true);
  });

  it('ignores a result that is not a listing', () => {
    const annotations = new ToolAnnotationCache();
    annotations.update(undefined, true);
    annotations.update({ tools: 'nope' }, true);
    expect(annotations.stale).toBe(true);
  });
});
