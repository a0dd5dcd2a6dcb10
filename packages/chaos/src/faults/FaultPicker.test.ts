import { describe, expect, it } from 'vitest';
import type { Fault } from '../plan/FaultPlan.js';
import { mulberry32 } from '../random/mulberry32.js';
import { FaultPicker, type FaultRequest } from './FaultPicker.js';

const call = (tool: string, time = 0): FaultRequest => ({
  transport: 'http',
  method: 'tools/call',
  tool,
  time,
});
const kinds = (picker: FaultPicker, requests: FaultRequest[]) =>
  requests.map((r) => picker.pick(r)?.kind ?? null);

describe('FaultPicker', () => {
  it('gives the same fault sequence for the same seed', () => {
    const faults: Fault[] = [
      { kind: 'rate_limit', probability: 0.3 },
      { kind: 'http_error', probability: 0.3 },
    ];
    const requests = Array.from({ length: 50 }, () => call('search'));
    const run = (seed: number) => kinds(new FaultPicker(faults, mulberry32(seed)), requests);
    expect(run(7)).toEqual(run(7));
    expect(run(7)).not.toEqual(run(8));
    expect(new Set(run(7))).toEqual(new Set(['rate_limit', 'http_error', null]));
  });

  it('takes the first matching fault in plan order', () => {
    const picker = new FaultPicker([{ kind: 'reset', tool: 'search' }, { kind: 'tool_error' }], Math.random);
    expect(kinds(picker, [call('search'), call('get_weather')])).toEqual(['reset', 'tool_error']);
  });

  it('matches tools/call by default, any method for outage and flapping, or the given methods', () => {
    const list: FaultRequest = { transport: 'http', method: 'tools/list', time: 0 };
    expect(new FaultPicker([{ kind: 'reset' }], Math.random).pick(list)).toBeNull();
    expect(new FaultPicker([{ kind: 'outage' }], Math.random).pick(list)?.kind).toBe('outage');
    expect(new FaultPicker([{ kind: 'reset', method: ['tools/list'] }], Math.random).pick(list)?.kind).toBe(
      'reset',
    );
    expect(new FaultPicker([{ kind: 'reset', method: '*' }], Math.random).pick(list)?.kind).toBe('reset');
  });

  it('never picks HTTP-only faults on stdio', () => {
    const picker = new FaultPicker([{ kind: 'rate_limit' }, { kind: 'crash' }], Math.random);
    expect(picker.pick({ transport: 'stdio', method: 'tools/call', tool: 'search', time: 0 })?.kind).toBe(
      'crash',
    );
  });

  it('applies only inside the from/to window', () => {
    const picker = new FaultPicker([{ kind: 'outage', from: 100, to: 200 }], Math.random);
    expect(kinds(picker, [call('x', 99), call('x', 100), call('x', 199), call('x', 200)])).toEqual([
      null,
      'outage',
      'outage',
      null,
    ]);
  });

  it('flaps: up first, then down for the duty fraction of each period', () => {
    const picker = new FaultPicker([{ kind: 'flapping', period: 100, duty: 0.25, from: 1000 }], Math.random);
    const times = [1000, 1074, 1075, 1099, 1100, 1175, 1200];
    expect(
      kinds(
        picker,
        times.map((t) => call('x', t)),
      ),
    ).toEqual([null, null, 'flapping', 'flapping', null, 'flapping', null]);
  });

  it('counts every Nth matching request and stops after `times` injections', () => {
    const picker = new FaultPicker([{ kind: 'reset', every: 2, times: 2 }], Math.random);
    const requests = Array.from({ length: 7 }, () => call('x'));
    expect(kinds(picker, requests)).toEqual([null, 'reset', null, 'reset', null, null, null]);
  });
});

describe('FaultPicker: faults drawn per call', () => {
  const call = (city: string) => ({
    transport: 'http' as const,
    method: 'tools/call',
    tool: 'get_weather',
    callKey: JSON.stringify(['get_weather', { city }]),
    time: 0,
  });
  const cities = Array.from({ length: 400 }, (_, i) => `city-${i}`);

  it('gives the same call the same fate on every attempt, whatever the other requests drew', () => {
    const picker = new FaultPicker(
      [{ kind: 'unauthorized', probability: 0.3, per: 'call' }],
      mulberry32(7),
      7,
    );
    const first = cities.map((c) => picker.pick(call(c))?.kind ?? null);
    const again = [...cities]
      .reverse()
      .map((c) => picker.pick(call(c))?.kind ?? null)
      .reverse();
    expect(again).toEqual(first);
    const share = first.filter((k) => k === 'unauthorized').length / cities.length;
    expect(share).toBeGreaterThan(0.2);
    expect(share).toBeLessThan(0.4);
  });

  it('draws per request by default: a retry of the same call may pass', () => {
    const picker = new FaultPicker([{ kind: 'unauthorized', probability: 0.5 }], mulberry32(7), 7);
    const fates = Array.from({ length: 50 }, () => picker.pick(call('Paris'))?.kind ?? null);
    expect(new Set(fates).size).toBe(2);
  });

  it('keys the draw on the seed: another seed, other calls fail', () => {
    const fates = (seed: number) => {
      const picker = new FaultPicker(
        [{ kind: 'unauthorized', probability: 0.3, per: 'call' }],
        mulberry32(seed),
        seed,
      );
      return cities.map((c) => picker.pick(call(c))?.kind ?? null);
    };
    expect(fates(1)).not.toEqual(fates(2));
  });
});
