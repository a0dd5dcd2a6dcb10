import { describe, expect, it } from 'vitest';
import { MAX_SHARED_OUTAGES } from './HealthStore.js';
import {
  decodeHealth,
  decodeMessage,
  encodeMessage,
  encodeNumber,
  encodeOutage,
  encodeVerdict,
} from './healthCodec.js';

describe('healthCodec', () => {
  const verdict = { state: 'open' as const, since: 10, until: 20, by: 'r1' };

  it('round-trips every piece', () => {
    const fields = {
      verdict: encodeVerdict(verdict),
      outage: encodeNumber('start', 5),
      hold: encodeNumber('until', 30),
      outages: [encodeOutage(100), encodeOutage(200)],
    };
    expect(decodeHealth(fields, { owner: 'r2', until: 40 })).toEqual({
      kind: 'health',
      health: {
        verdict,
        outageStart: 5,
        outages: [100, 200],
        holdUntil: 30,
        probe: { owner: 'r2', until: 40 },
      },
    });
    const update = { kind: 'verdict' as const, verdict };
    expect(decodeMessage(encodeMessage('svc', 'r1', update))).toEqual({
      kind: 'update',
      endpoint: 'svc',
      from: 'r1',
      update,
    });
  });

  it('reads nothing as empty', () => {
    expect(decodeHealth({ outages: [] }, undefined)).toEqual({ kind: 'empty' });
  });

  it.each([
    ['another version', '{"v":2,"state":"open","since":1,"by":"x"}', /version 2/],
    ['garbage', 'not json', /not JSON/],
    ['a bad state', '{"v":1,"state":"ajar","since":1,"by":"x"}', /state "ajar"/],
    ['a time that is not one', '{"v":1,"state":"open","since":-1,"by":"x"}', /since/],
    ['an oversized value', `{"v":1,"by":"${'x'.repeat(5000)}"}`, /characters/],
  ])('reads %s as unreadable, naming the problem', (_, text, problem) => {
    const read = decodeHealth({ verdict: text, outages: [] }, undefined);
    expect(read).toMatchObject({ kind: 'unreadable', problem: expect.stringMatching(problem) });
    expect(decodeMessage(text)).toMatchObject({ kind: 'unreadable' });
  });

  it('reads at most the newest outages, each checked', () => {
    const many = Array.from({ length: MAX_SHARED_OUTAGES + 5 }, (_, i) => encodeOutage(i));
    const read = decodeHealth({ outages: many }, undefined);
    expect(read.kind === 'health' && read.health.outages).toEqual(many.slice(5).map((_, i) => i + 5));
    expect(decodeHealth({ outages: ['{"v":1,"ms":"x"}'] }, undefined)).toMatchObject({ kind: 'unreadable' });
  });

  it('rejects messages with a bad update or endpoint', () => {
    expect(decodeMessage('{"v":1,"endpoint":"e","from":"r","update":{"kind":"explode"}}')).toMatchObject({
      kind: 'unreadable',
      problem: expect.stringMatching(/kind "explode"/),
    });
    expect(decodeMessage(`{"v":1,"endpoint":"${'e'.repeat(600)}","from":"r","update":{}}`)).toMatchObject({
      kind: 'unreadable',
    });
  });
});
