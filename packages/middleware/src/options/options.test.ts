import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createResilience } from '../createResilience.js';
import { splitMcpOptions } from '../mcp/McpResilienceOptions.js';
import { defaults as resolved } from '../options.js';
import { defaults } from './defaults.js';
import { coreFromFlat, guardFromFlat, mcpFromFlat } from './fromFlat.js';
import { CORE_PATHS } from './optionPaths.js';

/** `{ a: { b: value } }` for the path `a.b`. */
function atPath(path: string, value: unknown): Record<string, unknown> {
  return path
    .split('.')
    .reduceRight<Record<string, unknown>>(
      (inner, name, i, names) => ({ [name]: i === names.length - 1 ? value : inner }),
      {},
    );
}

/** A valid value other than the default, for every numeric or boolean core option. */
const changed = Object.entries(resolved).flatMap(([key, value]): Array<[string, number | boolean]> => {
  if (typeof value === 'boolean') return [[key, !value]];
  if (typeof value !== 'number') return [];
  return [[key, value === 1 ? 2 : value > 0 && value < 1 ? value / 2 : value * 3]];
});

describe('grouped options', () => {
  it('resolve every option given by its path as its flat name does', () => {
    expect(changed.length).toBeGreaterThan(25);
    for (const [key, value] of changed) {
      const path = CORE_PATHS[key as keyof typeof CORE_PATHS];
      const grouped = createResilience(atPath(path, value)).options as unknown as Record<string, unknown>;
      const flat = createResilience({ [key]: value }).options as unknown as Record<string, unknown>;
      expect(grouped[key], path).toBe(value);
      expect(grouped, path).toEqual(flat);
    }
  });

  it('has every default under its path, frozen', () => {
    expect(defaults.retry.maxAttempts).toBe(6);
    expect(defaults.retry.backoff).toEqual({
      baseMs: 100,
      factor: 2,
      maxMs: 30_000,
      jitter: 'full',
      adaptive: true,
      historySize: 20,
    });
    expect(defaults.breaker.breakMs).toBe(500);
    expect(defaults.gate.wait).toBe(true);
    expect(defaults.fleet.firstReadWaitMs).toBe(250);
    expect(Object.isFrozen(defaults.retry.backoff)).toBe(true);
    for (const [key, path] of Object.entries(CORE_PATHS)) {
      if (!(key in resolved)) continue;
      const value = path
        .split('.')
        .reduce<unknown>((node, name) => (node as Record<string, unknown>)[name], defaults);
      expect(value, path).toBe(resolved[key as keyof typeof resolved]);
    }
  });

  it('never change the options given, frozen ones included', () => {
    const given = Object.freeze({ breakerBreakMs: 700, retry: Object.freeze({ maxAttempts: 2 }) });
    const grouped = coreFromFlat('test', given);
    expect(grouped).toEqual({ breaker: { breakMs: 700 }, retry: { maxAttempts: 2 } });
    expect(given).toEqual({ breakerBreakMs: 700, retry: { maxAttempts: 2 } });
    expect(createResilience(given).options.breakerBreakMs).toBe(700);
  });

  it('refuse a flat name given together with its path', () => {
    expect(() => createResilience({ maxAttempts: 2, retry: { maxAttempts: 3 } })).toThrow(
      "createResilience: option 'maxAttempts' is the flat name of 'retry.maxAttempts'; give only 'retry.maxAttempts'",
    );
  });
});

describe('the mcp group', () => {
  it('takes idempotency in one shape, and translates the flat pair', () => {
    const tools = { create_item: false };
    expect(splitMcpOptions({ mcp: { idempotency: { default: 'always', tools } } }).mcp).toEqual({
      idempotency: 'assume-idempotent',
      toolIdempotency: tools,
    });
    expect(mcpFromFlat('test', { idempotency: 'assume-idempotent', toolIdempotency: tools })).toEqual({
      mcp: { idempotency: { default: 'always', tools } },
    });
    expect(mcpFromFlat('test', { toolIdempotency: tools })).toEqual({ mcp: { idempotency: { tools } } });
    expect(splitMcpOptions({ mcp: { idempotency: { tools } } }).mcp.idempotency).toBe('annotations');
  });

  it("folds nonRetryableAs into resultOn: 'non_retryable' there is the 'result' form", () => {
    expect(splitMcpOptions({ mcp: { resultOn: ['non_retryable', 'circuit_open'] } }).mcp).toEqual({
      nonRetryableAs: 'result',
      resultOn: ['circuit_open'],
    });
    expect(splitMcpOptions({ mcp: { resultOn: ['deadline'] } }).mcp).toEqual({
      nonRetryableAs: 'throw',
      resultOn: ['deadline'],
    });
    expect(mcpFromFlat('test', { nonRetryableAs: 'result', resultOn: ['shed'] })).toEqual({
      mcp: { resultOn: ['non_retryable', 'shed'] },
    });
    expect(mcpFromFlat('test', { nonRetryableAs: 'throw' })).toEqual({});
  });

  it('moves the flat MCP names to their paths and leaves the core ones to createResilience', () => {
    const { mcp, core } = splitMcpOptions({ server: 'weather', negativeCacheTtlMs: 0, maxAttempts: 2 });
    expect(mcp).toEqual({ server: 'weather', negativeCacheTtlMs: 0 });
    expect(core).toEqual({ maxAttempts: 2 });
  });
});

describe('the guard group', () => {
  it('takes idempotency in the same shape, without annotations', () => {
    expect(guardFromFlat('test', { idempotent: true })).toEqual({ guard: { idempotency: 'always' } });
    expect(guardFromFlat('test', { idempotent: { search: true } })).toEqual({
      guard: { idempotency: { default: 'never', tools: { search: true } } },
    });
  });
});

describe('the README', () => {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  it('has the flat → grouped table for every flat core name', () => {
    for (const [flat, path] of Object.entries(CORE_PATHS)) {
      if (flat === path) continue;
      expect(readme, flat).toMatch(
        new RegExp(`\\|\\s*\`${flat}\`\\s*\\|\\s*\`${path.replaceAll('.', '\\.')}\`\\s*\\|`),
      );
    }
  });
});
