import { describe, expect, it } from 'vitest';
import { callsHref, compareGroupLink } from '@/ui/charts/calls-link';

/*
 * The Calls page a click on a chart point opens: the bucket, the page's filters, what the point stands for and,
 * in compare mode, the clicked line's group.
 */

const link = (href: string) => {
  const u = new URL(href, 'http://x');
  return { path: u.pathname, params: Object.fromEntries(u.searchParams) };
};

describe('chart point → Calls page', () => {
  it("keeps the page's Calls filters (not its range or compare mode) and adds the bucket and the link", () => {
    const page = new URLSearchParams('service=agent&tool=search&range=1h&compare=server&x=1');
    expect(link(callsHref(page, 1_000, 60_000, { only: 'failed' }))).toEqual({
      path: '/calls',
      params: { service: 'agent', tool: 'search', from: '1000', to: '61000', only: 'failed' },
    });
  });

  it("in compare mode filters by the clicked line's service, server or variant", () => {
    const page = new URLSearchParams('tool=search');
    for (const by of ['service', 'server', 'variant'] as const) {
      const href = callsHref(page, 0, 10_000, { only: 'retried', ...compareGroupLink(by, 'g-1') });
      expect(link(href).params).toEqual({
        tool: 'search',
        from: '0',
        to: '10000',
        only: 'retried',
        [by]: 'g-1',
      });
    }
    // the group wins over a page filter of the same name
    const filtered = new URLSearchParams('server=weather');
    expect(link(callsHref(filtered, 0, 10_000, compareGroupLink('server', 'search'))).params.server).toBe(
      'search',
    );
  });

  it('adds no filter the Calls page cannot apply: an instance, or the group without a value', () => {
    expect(compareGroupLink('instance', 'i-1')).toEqual({});
    expect(compareGroupLink('variant', '')).toEqual({});
    expect(link(callsHref(new URLSearchParams(), 0, 1, compareGroupLink('instance', 'i-1'))).params).toEqual({
      from: '0',
      to: '1',
    });
  });
});
