import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { requireBinary, run } from './support/process.js';
import { listFiles, RULES_FILE, repoPath } from './support/repo.js';

// Debian's promtool 2.42 and amtool 0.25 (packages `prometheus` and `prometheus-alertmanager`).
const testFiles = listFiles('prometheus/tests').filter((f) => f.endsWith('.test.yml'));

describe('promtool (Prometheus 2.42)', () => {
  const promtool = requireBinary('promtool');

  it('checks prometheus.yml, including the rule files it names (relative to the config)', () => {
    const r = run(promtool, ['check', 'config', 'prometheus/prometheus.yml']);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toContain('SUCCESS: 1 rule files found');
    expect(r.output).toContain('mcp-resilience.rules.yml');
  });

  it('checks the rules, with every linter, lint errors fatal', () => {
    const r = run(promtool, ['check', 'rules', '--lint=all', '--lint-fatal', RULES_FILE]);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toMatch(/SUCCESS: 13 rules found/);
  });

  it('passes the rule unit tests', () => {
    expect(testFiles.length).toBeGreaterThan(0);
    const r = run(promtool, ['test', 'rules', ...testFiles]);
    expect(r.code, r.output).toBe(0);
    expect(r.output.match(/SUCCESS/g)?.length).toBe(testFiles.length);
  });

  // The unit tests bite: each mutation of the rules must make promtool fail, naming the test that caught it.
  describe('catches broken rules', () => {
    const work = mkdtempSync(join(tmpdir(), 'mcp-resilience-rules-'));
    afterAll(() => rmSync(work, { recursive: true, force: true }));

    const mutations: { name: string; from: RegExp; to: string; caughtBy: string }[] = [
      { name: 'a 0.95 threshold', from: /< 0\.8/g, to: '< 0.95', caughtBy: 'silent at 90% efficiency' },
      {
        name: 'no volume guard',
        from: /\* 3600 >= 20/,
        to: '* 3600 >= 0',
        caughtBy: 'silent below the volume guard',
      },
      {
        name: 'no explicit zero numerator',
        from: /\n\s*or\n\s*0 \* sum by \(mcp_resilience_server\) \(rate\(mcp_resilience_retries_total\[(5m|1h)\]\)\)/g,
        to: '',
        caughtBy: 'fires at 0% efficiency',
      },
      {
        name: 'a 1m breaker delay',
        from: /for: 2m/,
        to: 'for: 1m',
        caughtBy: 'fires after 2 minutes open, not before',
      },
      {
        // Per-process ratios averaged per server, instead of summed numerators over summed denominators.
        name: 'an averaged ratio',
        from: /mcp_resilience_server:mcp_resilience_retries_successful:rate(5m|1h) \/ mcp_resilience_server:mcp_resilience_retries:rate(?:5m|1h)/g,
        to: 'avg by (mcp_resilience_server) (sum by (mcp_resilience_server, instance) (rate(mcp_resilience_retries_total{mcp_resilience_outcome="success"}[$1])) / sum by (mcp_resilience_server, instance) (rate(mcp_resilience_retries_total[$1])))',
        caughtBy: 'aggregates numerator and denominator, never ratios',
      },
      {
        name: 'a canary threshold that is not significance',
        from: /< -1\.96/g,
        to: '< 0',
        caughtBy: 'canary silent when the difference is not significant',
      },
      {
        name: 'no canary call volume guard',
        from: /!="control"\} >= 100/,
        to: '!="control"} >= 0',
        caughtBy: 'canary silent below the minimum volume',
      },
      {
        name: 'no canary retry volume guard',
        from: /!="control"\} >= 20/,
        to: '!="control"} >= 0',
        caughtBy: 'canary efficiency silent below 20 retries',
      },
    ];

    it.each(mutations)('$name', ({ name, from, to, caughtBy }) => {
      const dir = join(work, name.replace(/\W+/g, '-'));
      mkdirSync(join(dir, 'rules'), { recursive: true });
      cpSync(repoPath('prometheus/tests'), join(dir, 'tests'), { recursive: true });
      const original = readFileSync(repoPath(RULES_FILE), 'utf8');
      const mutated = original.replace(from, to);
      expect(mutated, 'the mutation applies').not.toBe(original);
      writeFileSync(join(dir, 'rules', 'mcp-resilience.rules.yml'), mutated);
      const r = run(promtool, [
        'test',
        'rules',
        ...testFiles.map((f) => join(dir, 'tests', f.split('/').pop()!)),
      ]);
      expect(r.code, r.output).toBe(1);
      expect(r.output).toContain(`name: ${caughtBy}`);
    });
  });
});

describe('amtool (Alertmanager 0.25)', () => {
  const amtool = requireBinary('amtool');

  it('checks alertmanager.yml', () => {
    const r = run(amtool, ['check-config', 'alertmanager/alertmanager.yml']);
    expect(r.code, r.output).toBe(0);
    expect(r.output).toContain('SUCCESS');
    expect(r.output).toContain('1 receivers');
  });

  it.each(['RetryEfficiencyBelowTarget', 'CircuitBreakerOpen', 'McpResilienceTelemetryDown'])(
    'routes %s to the dashboard',
    (alertname) => {
      const r = run(amtool, [
        'config',
        'routes',
        'test',
        '--config.file=alertmanager/alertmanager.yml',
        '--verify.receivers=dashboard',
        `alertname=${alertname}`,
        'mcp_resilience_server=weather',
      ]);
      expect(r.code, r.output).toBe(0);
      expect(r.stdout.trim()).toBe('dashboard');
    },
  );
});
