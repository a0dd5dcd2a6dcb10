import { describe, expect, it } from 'vitest';
import { createResilience } from '../createResilience.js';
import {
  ATTR_MCP_RESILIENCE_FALLBACK_FROM,
  ATTR_MCP_RESILIENCE_SERVER,
  ATTR_MCP_RESILIENCE_VARIANT,
  ATTR_MCP_SESSION_ID,
} from '../otel/semconv.js';
import { callAttributes } from './callAttributes.js';
import { createMemoryRecorder } from './createMemoryRecorder.js';

describe('callAttributes', () => {
  it('maps the typed context to attributes, without changing the given ones', () => {
    const attributes = { [ATTR_MCP_RESILIENCE_SERVER]: 'backup' };
    const mapped = callAttributes({
      attributes,
      variant: 'candidate',
      sessionId: 'abc',
      routedFrom: { server: 'primary' },
    });
    expect(mapped).toEqual({
      [ATTR_MCP_RESILIENCE_SERVER]: 'backup',
      [ATTR_MCP_SESSION_ID]: 'abc',
      [ATTR_MCP_RESILIENCE_FALLBACK_FROM]: 'primary',
      [ATTR_MCP_RESILIENCE_VARIANT]: 'candidate',
    });
    expect(attributes).toEqual({ [ATTR_MCP_RESILIENCE_SERVER]: 'backup' });
    expect(callAttributes({ attributes })).toBe(attributes); // no context: the call's own object
  });

  it("is what every event of a call carries, and a bad context is refused by the option's name", async () => {
    const recorder = createMemoryRecorder();
    const r = createResilience({ recorder });
    await r.execute(() => 'ok', { attributes: { [ATTR_MCP_RESILIENCE_SERVER]: 's' }, sessionId: 'abc' });
    const sessions = recorder.events.flatMap((e) =>
      'callId' in e ? [e.attributes[ATTR_MCP_SESSION_ID]] : [],
    );
    expect(sessions.length).toBeGreaterThan(2);
    expect(new Set(sessions)).toEqual(new Set(['abc']));
    await expect(r.execute(() => 'ok', { variant: '' })).rejects.toThrow(
      "execute: option 'variant' must be a non-empty string",
    );
    await expect(r.execute(() => 'ok', { routedFrom: {} as { server: string } })).rejects.toThrow(
      "execute: option 'routedFrom' must be an object { server }",
    );
    await expect(r.execute(() => 'ok', { caller: '' })).rejects.toThrow(
      "execute: option 'caller' must be a non-empty string",
    );
    await expect(r.execute(() => 'ok', { rememberFailure: true as never })).rejects.toThrow(
      "execute: option 'rememberFailure' must be a function returning a boolean, got true",
    );
    // The caller keys the negative cache only: never an attribute (it may name a user).
    const before = recorder.events.length;
    await r.execute(() => 'ok', { attributes: { [ATTR_MCP_RESILIENCE_SERVER]: 's' }, caller: 'alice' });
    const added = recorder.events.slice(before).flatMap((e) => ('callId' in e ? [e.attributes] : []));
    expect(added.length).toBeGreaterThan(1);
    expect(added.every((a) => !Object.values(a).includes('alice'))).toBe(true);
  });
});
