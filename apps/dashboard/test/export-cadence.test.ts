import { describe, expect, it } from 'vitest';
import { exportCadence } from '@/lib/ingest/export-cadence';
import type { NumberPoint, ResourceMetrics } from '@/lib/otlp/model';

const T = 1_800_000_000_000;
const point = (attrs: string, startMs: number): NumberPoint =>
  ({ attributes: { a: attrs }, startMs, timeMs: T, value: 1 }) as unknown as NumberPoint;
const resource = (temporality: 1 | 2, points: NumberPoint[]): ResourceMetrics => ({
  resource: {},
  scopes: [
    { scope: 's', metrics: [{ type: 'sum', name: 'm', unit: '', temporality, monotonic: true, points }] },
  ],
});
const keyOf = (_m: string, _s: string, attrs: ResourceMetrics['resource']) => String(attrs.a);

describe('exportCadence', () => {
  it('takes a cumulative export over the time since its series were last seen, not a new series start', () => {
    // a series seen 30 s ago; one unchanged since a state stored 90 s ago; a new one, started by the SDK at its
    // first call 1.2 s ago
    const prev = new Map([
      ['x', T - 30_000],
      ['y', T - 90_000],
    ]);
    const rm = resource(2, [point('x', T - 600_000), point('y', T - 600_000), point('z', T - 1_200)]);
    expect(exportCadence(rm, keyOf, (k) => prev.get(k))).toEqual({ exportAt: T, exportMs: 30_000 });
  });

  it('takes a delta export over its points start to time', () => {
    const rm = resource(1, [point('x', T - 10_000), point('y', T - 10_000)]);
    expect(exportCadence(rm, keyOf, () => undefined)).toEqual({ exportAt: T, exportMs: 10_000 });
  });

  it('gives a first cumulative export its time, when its calls began and no interval; a resource without points is not seen', () => {
    const first = resource(2, [point('x', T - 1_200), point('y', T - 5_000)]);
    expect(exportCadence(first, keyOf, () => undefined)).toEqual({ exportAt: T, callsFrom: T - 5_000 });
    expect(exportCadence(resource(2, []), keyOf, () => undefined)).toBeUndefined();
  });
});
