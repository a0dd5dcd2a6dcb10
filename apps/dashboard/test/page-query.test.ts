import { describe, expect, it } from 'vitest';
import { parseCallsQuery, parsePageQuery } from '@/lib/data/query-params';

const NOW = 1_800_000_000_000;

describe('page URL state', () => {
  it('a custom from/to (a brush or the range form) wins over the preset; too short or partial falls back', () => {
    const custom = parsePageQuery({ range: '1h', from: String(NOW - 90_000), to: String(NOW - 30_000) }, NOW);
    expect(custom.custom).toBe(true);
    expect(custom.query).toMatchObject({ from: NOW - 90_000, to: NOW - 30_000 });
    expect(custom.range).toBe('1h'); // the live stream's window stays a preset
    // a `to` in the future is clipped to now
    expect(parsePageQuery({ from: String(NOW - 60_000), to: String(NOW + 60_000) }, NOW).query.to).toBe(NOW);
    for (const sp of [
      { from: String(NOW - 60_000) },
      { from: String(NOW - 5000), to: String(NOW) },
      { from: 'x', to: '1' },
    ]) {
      const p = parsePageQuery(sp, NOW);
      expect(p.custom).toBe(false);
      expect(p.query).toMatchObject({ from: NOW - 3_600_000, to: NOW });
    }
  });

  it('reads the variant filter and a known compare mode only', () => {
    const p = parsePageQuery({ variant: 'canary', compare: 'service' }, NOW);
    expect(p.query.filters.variant).toBe('canary');
    expect(p.compare).toBe('service');
    expect(parsePageQuery({ compare: 'instance; drop' }, NOW).compare).toBeUndefined();
  });

  it('a chart point link: the bucket, the page filters and what was clicked', () => {
    const q = parseCallsQuery(
      {
        from: String(NOW - 20_000),
        to: String(NOW - 10_000),
        server: 'down',
        only: 'failed',
        class: 'retryable',
      },
      NOW,
    );
    expect(q).toMatchObject({
      from: NOW - 20_000,
      to: NOW - 10_000,
      only: 'failed',
      errorClass: 'retryable',
      filters: { server: 'down' },
    });
    expect(parseCallsQuery({ only: 'everything' }, NOW).only).toBeUndefined();
    // a latency row without a tool links to its method's calls
    const list = parseCallsQuery({ server: 'search', method: 'tools/list' }, NOW);
    expect(list.filters).toMatchObject({ server: 'search', method: 'tools/list' });
    expect(list.filters.tool).toBeUndefined();
    expect(parseCallsQuery({ method: '' }, NOW).filters.method).toBeUndefined();
  });
});
