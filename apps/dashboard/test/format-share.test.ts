import { describe, expect, it } from 'vitest';
import { fmtShare } from '@/lib/format';

describe('fmtShare', () => {
  it('never rounds a share to a false figure', () => {
    expect(fmtShare(17 / 4000)).toBe('0.4%'); // was "0%" with fmtPct(v, 0)
    expect(fmtShare(1 / 100_000)).toBe('<0.1%');
    expect(fmtShare(0)).toBe('0%');
    expect(fmtShare(0.0999)).toBe('10.0%');
    expect(fmtShare(0.5)).toBe('50%');
    expect(fmtShare(0.996)).toBe('99%');
    expect(fmtShare(0.9995)).toBe('>99.9%');
    expect(fmtShare(1)).toBe('100%');
    expect(fmtShare(null)).toBe('–');
  });
});
