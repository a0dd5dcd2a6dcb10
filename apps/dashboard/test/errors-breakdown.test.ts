import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import BreakdownTable from '@/ui/errors/breakdown-table';

describe("the Errors page's breakdowns", () => {
  it('show a small share as it is, not as "0%" (3 network errors in 928 failed attempts)', () => {
    const rows = [
      { key: 'unavailable (retryable)', count: 925 },
      { key: 'network (retryable)', count: 3 },
    ];
    const html = renderToString(
      createElement(BreakdownTable, { title: 'By type', rows, testid: 'errors-type' }),
    );
    expect(html).toContain('>0.3%</td>');
    expect(html).toContain('>99%</td>');
    expect(html).not.toContain('>0%<');
  });

  it('say so when there are no failed attempts', () => {
    const html = renderToString(
      createElement(BreakdownTable, { title: 'By tool', rows: [], testid: 'errors-tool' }),
    );
    expect(html).toContain('No failed attempts.');
  });
});
