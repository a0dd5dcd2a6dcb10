import { createElement } from 'react';
import { renderToString } from 'react-dom/server';
import { afterEach, describe, expect, it } from 'vitest';
import type { CallRow } from '@/lib/data/types';
import { fmtAxisTime, fmtDateTime, fmtTime } from '@/lib/format';
import CallList from '@/ui/calls/call-list';
import LocalTime from '@/ui/local-time';

/*
 * Server-rendered times (Calls list, Calls filter chips, Alerts page, breaker timeline axis, shadow examples):
 * the server knows no viewer's zone, so it renders UTC, marked so, in a <time dateTime> that the browser shows
 * in its own zone once hydrated, as the charts do. Never the server's own zone.
 */

const t = Date.UTC(2026, 11, 1, 6, 5, 9);
const iso = '2026-12-01T06:05:09.000Z';
const tz = process.env.TZ;
afterEach(() => {
  if (tz === undefined) delete process.env.TZ;
  else process.env.TZ = tz;
});

describe('times rendered on the server', () => {
  it('formats in UTC when asked, whatever the process zone', () => {
    process.env.TZ = 'Asia/Tokyo';
    expect(fmtTime(t)).toBe('15:05:09'); // the process's zone: what the server used to show
    expect(fmtTime(t, true, 'utc')).toBe('06:05:09');
    expect(fmtTime(t, false, 'utc')).toBe('06:05');
    expect(fmtDateTime(t, 'utc')).toBe('2026-12-01 06:05:09');
    expect(fmtAxisTime(t, 3 * 86_400_000, 'utc')).toBe('12-01 06h');
    expect(fmtAxisTime(t, 3_600_000, 'utc')).toBe('06:05');
    // a chart of a few minutes (a fresh agent's first data) has ticks under a minute apart: seconds shown
    expect(fmtAxisTime(t, 4 * 60_000, 'utc')).toBe('06:05:09');
  });

  it('renders a <time dateTime> in UTC, marked, for the browser to show in its zone', () => {
    process.env.TZ = 'America/Los_Angeles';
    expect(renderToString(createElement(LocalTime, { t, format: 'datetime' }))).toBe(
      `<time dateTime="${iso}" title="${iso}">2026-12-01 06:05:09 UTC</time>`,
    );
    expect(renderToString(createElement(LocalTime, { t }))).toContain('>06:05:09 UTC</time>');
    expect(renderToString(createElement(LocalTime, { t, format: 'axis', spanMs: 3_600_000 }))).toContain(
      '>06:05 UTC</time>',
    );
    expect(renderToString(createElement(LocalTime, { t: Number.NaN }))).toBe('–');
  });

  it('the Calls list dates each call so', () => {
    process.env.TZ = 'Asia/Tokyo';
    const call: CallRow = {
      traceId: 't1',
      spanId: 's1',
      service: 'agent',
      server: 'weather',
      method: 'tools/call',
      tool: 'get_forecast',
      operation: 'tools/call',
      variant: '',
      startMs: t,
      durationMs: 12,
      outcome: 'failure',
      attempts: 1,
      errorClass: 'non_retryable',
      errorType: 'invalid_params',
      wastedRetries: 0,
      wastedTimeMs: 0,
      message: '',
      attemptRows: [],
      attemptsOmitted: 0,
    };
    const html = renderToString(createElement(CallList, { calls: [call] }));
    expect(html).toContain(`<time dateTime="${iso}" title="${iso}">06:05:09 UTC</time>`);
    expect(html).not.toContain('15:05');
  });
});
