import { describe, expect, it } from 'vitest';
import { callKey, canonicalJson, MAX_CANONICAL_ARGUMENTS_CHARS } from './callKey.js';

describe('callKey', () => {
  it('is the same for the same call whatever the key order, and differs by server, tool and arguments', () => {
    const a = callKey('s', 't', { b: [1, { y: 2, x: 1 }], a: 'x' });
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(callKey('s', 't', { a: 'x', b: [1, { x: 1, y: 2 }] })).toBe(a);
    expect(callKey('s2', 't', { a: 'x', b: [1, { x: 1, y: 2 }] })).not.toBe(a);
    expect(callKey('s', 't2', { a: 'x', b: [1, { x: 1, y: 2 }] })).not.toBe(a);
    expect(callKey('s', 't', { a: 'x', b: [{ x: 1, y: 2 }, 1] })).not.toBe(a);
    // No ambiguity between the server/tool boundary and the names.
    expect(callKey('a/b', 'c', {})).not.toBe(callKey('a', 'b/c', {}));
    // Undefined and missing arguments are the same call; undefined properties are dropped as JSON does.
    expect(callKey('s', 't', undefined)).toBe(callKey('s', 't', {}));
    expect(callKey('s', 't', { a: undefined })).toBe(callKey('s', 't', {}));
  });

  it('refuses what it cannot key: too large, too deep, cyclic, not JSON', () => {
    expect(callKey('s', 't', { text: 'x'.repeat(MAX_CANONICAL_ARGUMENTS_CHARS) })).toBeUndefined();
    let deep: unknown = 1;
    for (let i = 0; i < 40; i++) deep = { d: deep };
    expect(callKey('s', 't', deep)).toBeUndefined();
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(callKey('s', 't', cyclic)).toBeUndefined();
    expect(callKey('s', 't', { n: 1n })).toBeUndefined();
    expect(callKey('s', 't', { f: () => 1 })).toBeUndefined();
    // A shared (not cyclic) object is fine.
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
    expect(canonicalJson([1, undefined, Number.NaN])).toBe('[1,null,null]');
  });
});
