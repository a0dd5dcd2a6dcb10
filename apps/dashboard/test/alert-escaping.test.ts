import { afterEach, describe, expect, it } from 'vitest';
import { notificationBody } from '@/lib/alerts/notifier';
import { BUILT_IN_RULE, RuleValidationError, ruleEdit, validateRule } from '@/lib/alerts/rule';
import { slackEscape, slackLink } from '@/lib/alerts/slack-text';
import { startTestServer, type TestServer } from './support/runtime';

/*
 * Issue #22 item 5: outside text in notifications is escaped for each target's markup (Slack: `&`, `<`, `>`;
 * the JSON target is JSON-encoded), with the payloads of the issue; rule updates are validated strictly.
 */

const HOSTILE = '<!channel> <https://evil.example|Re-authenticate>';

const entry = (over: Partial<{ name: string; labels: Record<string, string>; summary: string }> = {}) => ({
  id: 1,
  at: 0,
  key: 'k',
  source: 'alertmanager' as const,
  name: 'RetryEfficiencyBelowTarget',
  labels: { mcp_resilience_server: HOSTILE },
  state: 'firing',
  value: 0.5,
  summary: `Retry efficiency for ${HOSTILE} is 50% & falling <@U123>`,
  ...over,
});

describe('Slack notifications', () => {
  it('make the issue payload inert: no mention, no disguised link, only the dashboard link is markup', () => {
    const body = notificationBody('slack', {
      status: 'firing',
      entry: entry({ name: '<!here>' }),
      startsAt: 0,
      dashboardUrl: 'https://dash.example',
    }) as { text: string };
    expect(body.text).toBe(
      ':red_circle: *[FIRING] &lt;!here&gt;* (mcp_resilience_server=&lt;!channel&gt; &lt;https://evil.example|Re-authenticate&gt;) ' +
        'Retry efficiency for &lt;!channel&gt; &lt;https://evil.example|Re-authenticate&gt; is 50% &amp; falling &lt;@U123&gt; ' +
        '<https://dash.example/alerts|open dashboard>',
    );
    // the one control sequence left is the dashboard link
    expect(body.text.match(/<[^>]*>/g)).toEqual(['<https://dash.example/alerts|open dashboard>']);
  });

  it('escape labels keys too, and a link cannot be closed or split by its url or text', () => {
    const body = notificationBody('slack', {
      status: 'resolved',
      entry: entry({ labels: { '<!channel>': 'x' }, summary: 's' }),
      startsAt: 0,
    }) as { text: string };
    expect(body.text).toContain('(&lt;!channel&gt;=x)');
    expect(body.text).not.toMatch(/[<>]/);
    expect(slackEscape('a & b < c > d')).toBe('a &amp; b &lt; c &gt; d');
    expect(slackLink('https://x.example/a|b>c', 'go <now>')).toBe(
      '<https://x.example/a%7Cb&gt;c|go &lt;now&gt;>',
    );
  });

  it('keep the JSON target exact: the text is JSON-encoded, not altered', () => {
    const body = notificationBody('json', { status: 'firing', entry: entry(), startsAt: 0 }) as {
      alert: { labels: Record<string, string>; summary: string };
    };
    expect(body.alert.labels.mcp_resilience_server).toBe(HOSTILE);
    expect(JSON.parse(JSON.stringify(body)).alert.summary).toBe(entry().summary);
  });
});

describe('alert-rule updates', () => {
  it('refuse arrays, unknown fields, nested values and changed ids, naming the field', () => {
    const refused = (body: unknown) => {
      try {
        ruleEdit(BUILT_IN_RULE, body);
      } catch (error) {
        if (error instanceof RuleValidationError) return [error.field, error.message];
      }
      return undefined;
    };
    expect(refused([{ threshold: 0.5 }])).toEqual(['body', 'body must be a JSON object of rule fields']);
    expect(refused({ threshold: 0.5, bogus: 1 })?.[0]).toBe('bogus');
    expect(refused({ threshold: 0.5, bogus: 1 })?.[1]).toMatch(
      /^unknown field 'bogus' \(editable: threshold, /,
    );
    expect(refused({ threshold: [0.5] })).toEqual([
      'threshold',
      'threshold must be a single value, not an array',
    ]);
    expect(refused({ severity: { $ne: 1 } })?.[0]).toBe('severity');
    expect(refused({ id: 'other' })).toEqual(['id', 'id cannot be changed']);
    expect(refused({ __proto__: { threshold: 0 } } as unknown)).toBeUndefined(); // not an own field: nothing set
    expect(refused({ ...BUILT_IN_RULE, threshold: 0.7 })).toBeUndefined();
    expect(() => validateRule(BUILT_IN_RULE, { threshold: '0x1' })).toThrow(/threshold must be a number/);
    expect(validateRule(BUILT_IN_RULE, { threshold: '0.75' }).threshold).toBe(0.75);
  });

  const servers: TestServer[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) await s.close();
  });

  it('answer 400 with the field over HTTP, and a GET answer can be sent back', async () => {
    const s = await startTestServer();
    servers.push(s);
    const put = (body: unknown) =>
      fetch(`${s.url}/api/alerts/rules/retry-efficiency`, { method: 'PUT', body: JSON.stringify(body) });
    for (const [body, field] of [
      [[1, 2], 'body'],
      [{ forMs: 0, extra: true }, 'extra'],
      [{ minRetries: [5] }, 'minRetries'],
    ] as const) {
      const r = await put(body);
      expect(r.status).toBe(400);
      expect(((await r.json()) as { field: string }).field).toBe(field);
    }
    const rule = await (await fetch(`${s.url}/api/alerts/rules/retry-efficiency`)).json();
    const r = await put({ ...rule, minRetries: 30 });
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ minRetries: 30, forMs: BUILT_IN_RULE.forMs });
  });
});
