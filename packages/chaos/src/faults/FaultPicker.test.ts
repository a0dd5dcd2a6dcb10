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
