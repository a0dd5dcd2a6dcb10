import { dirname, posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as semconv from '../../middleware/src/otel/semconv.js';
import {
  type AlertingRule,
  isAlert,
  listFiles,
  loadPrometheus,
  loadRules,
  type RecordingRule,
  RULES_FILE,
  type RuleTestFile,
  readYaml,
} from './support/repo.js';

// The telemetry contract (design §4): every Prometheus name comes from the middleware's semconv module.
const PROM_METRICS = new Set(
  Object.entries(semconv)
    .filter(([k]) => k.startsWith('PROM_MCP_'))
    .map(([, v]) => v as string),
);
const PROM_LABELS = new Set(
  Object.entries(semconv)
    .filter(([k]) => k.startsWith('PROM_LABEL_'))
    .map(([, v]) => v as string),
);
/** Labels Prometheus itself sets (the exporter's job/instance come from service.name/service.instance.id). */
const TARGET_LABELS = new Set(['job', 'instance']);
/** Prometheus's own metrics the rules may use. */
const PROMETHEUS_METRICS = new Set(['up']);

const rules = loadRules();
const all = rules.groups.flatMap((g) => g.rules);
const recording = all.filter((r): r is RecordingRule => !isAlert(r));
const alerts = all.filter(isAlert);
const recorded = new Set(recording.map((r) => r.record));
const alert = (name: string): AlertingRule => {
  const a = alerts.find((x) => x.alert === name);
  if (!a) throw new Error(`no alert ${name} in ${RULES_FILE}`);
  return a;
};
const squash = (expr: string) => expr.replace(/\s+/g, ' ').trim();

const PROMQL_WORDS = new Set([
  'and',
  'or',
  'unless',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'offset',
]);

/** The series names (metrics and recorded series) an expression selects. */
function seriesNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""') // string literals
    .replace(/\{[^}]*\}/g, ' ') // label matchers
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ') // label lists
    .replace(/\[[^\]]*\]/g, ' '); // ranges
  const names: string[] = [];
  for (const m of stripped.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const after = stripped.slice(m.index! + m[0].length);
    if (/^\s*\(/.test(after) || PROMQL_WORDS.has(m[0])) continue; // functions, aggregations, keywords
    const before = stripped.slice(0, m.index!);
    if (/\d$/.test(before) || /[\d.]$/.test(before)) continue; // the unit of a number (5m) or exponent
    names.push(m[0]);
  }
  return names;
}

/** Label names and values an expression matches on or groups by. */
function labelUse(expr: string): { names: string[]; matchers: [string, string][] } {
  const names: string[] = [];
  const matchers: [string, string][] = [];
  for (const [, list] of expr.matchAll(
    /\b(?:by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g,
  )) {
    names.push(
      ...list!
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
  }
  for (const [, body] of expr.matchAll(/\{([^}]*)\}/g)) {
    for (const [, name, value] of body!.matchAll(/([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)\s*"([^"]*)"/g)) {
      names.push(name!);
      matchers.push([name!, value!]);
    }
  }
  return { names, matchers };
}

describe(RULES_FILE, () => {
  it('selects only the design Prometheus names, imported from the middleware semconv module', () => {
    expect(PROM_METRICS.size).toBeGreaterThan(5);
    const raw = new Set<string>();
    for (const rule of all) {
      for (const name of seriesNames(rule.expr)) {
        if (recorded.has(name)) continue;
        expect(name, `${isAlert(rule) ? rule.alert : rule.record}: unknown series ${name}`).not.toContain(
          ':',
        );
        expect(PROM_METRICS.has(name) || PROMETHEUS_METRICS.has(name), `unknown metric ${name}`).toBe(true);
        raw.add(name);
      }
    }
    expect([...raw].sort()).toEqual(
      [
        semconv.PROM_MCP_RESILIENCE_CALLS_TOTAL,
        semconv.PROM_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE,
        semconv.PROM_MCP_RESILIENCE_RETRIES_TOTAL,
        'up',
      ].sort(),
    );
  });

  it('uses the contract labels and attribute values', () => {
    for (const rule of all) {
      const { names, matchers } = labelUse(rule.expr);
      for (const n of names)
        expect(PROM_LABELS.has(n) || TARGET_LABELS.has(n), `unknown label ${n}`).toBe(true);
      for (const [name, value] of matchers) {
        if (name === semconv.PROM_LABEL_MCP_RESILIENCE_OUTCOME)
          expect(semconv.RETRY_OUTCOME_VALUES).toContain(value);
        if (name === semconv.PROM_LABEL_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE)
          expect(semconv.STATE_VALUES).toContain(value);
      }
    }
    expect(squash(recording.map((r) => r.expr).join(' '))).toContain(
      `{${semconv.PROM_LABEL_MCP_RESILIENCE_OUTCOME}="${semconv.OUTCOME_VALUE_SUCCESS}"}`,
    );
  });

  it('records the numerator and the denominator per mcp_resilience_server over 5m and 1h, never a ratio', () => {
    const retries = semconv.PROM_MCP_RESILIENCE_RETRIES_TOTAL;
    for (const window of ['5m', '1h']) {
      const denominator = recording.find(
        (r) => r.record === `mcp_resilience_server:mcp_resilience_retries:rate${window}`,
      );
      const numerator = recording.find(
        (r) => r.record === `mcp_resilience_server:mcp_resilience_retries_successful:rate${window}`,
      );
      expect(squash(denominator!.expr)).toBe(`sum by (mcp_resilience_server) (rate(${retries}[${window}]))`);
      // All retries failing leaves no mcp_resilience_outcome="success" series: the fallback keeps the numerator at 0, not absent.
      expect(squash(numerator!.expr)).toBe(
        `sum by (mcp_resilience_server) (rate(${retries}{mcp_resilience_outcome="success"}[${window}])) or 0 * sum by (mcp_resilience_server) (rate(${retries}[${window}]))`,
      );
    }
    for (const r of recording) {
      expect(r.record, 'level:metric:operations').toMatch(/^[a-z_]+:[a-z_]+:[a-z0-9_]+$/);
      expect(r.expr, `${r.record} must not divide`).not.toMatch(/\//);
      expect(r.expr, `${r.record} must not average`).not.toMatch(/\bavg\b/);
      const usedBy = alerts.filter((a) => seriesNames(a.expr).includes(r.record));
      expect(usedBy.length, `${r.record} is not used by any alert`).toBeGreaterThan(0);
    }
    // 4 for retry efficiency, 4 for the canary (calls and retries per server and variant).
    expect(recording).toHaveLength(8);
  });

  it('alerts on retry efficiency below 0.8 over 5m and 1h, with at least 20 retries in the hour, for 5m', () => {
    const a = alert('RetryEfficiencyBelowTarget');
    const expr = squash(a.expr);
    for (const window of ['1h', '5m']) {
      expect(expr).toContain(
        `mcp_resilience_server:mcp_resilience_retries_successful:rate${window} / mcp_resilience_server:mcp_resilience_retries:rate${window} < 0.8`,
      );
    }
    expect(expr).toMatch(/\band mcp_resilience_server:mcp_resilience_retries:rate1h \* 3600 >= 20$/);
    expect(a.for).toBe('5m');
    expect(a.labels?.severity).toBe('warning');
    // An 80% target leaves a 20% error budget: the highest burn rate is 5x, so workbook factors could never fire.
    for (const rule of all) expect(rule.expr).not.toMatch(/14\.4|\b6\s*\*|\*\s*6\b|\(1 - 0\.8\)/);
  });

  it('alerts when a breaker is open for more than 2 minutes, per mcp_resilience_server', () => {
    const a = alert('CircuitBreakerOpen');
    expect(squash(a.expr)).toBe(
      `count by (mcp_resilience_server) (${semconv.PROM_MCP_RESILIENCE_CIRCUIT_BREAKER_STATE}{mcp_resilience_circuit_breaker_state="open"} == 1)`,
    );
    expect(a.for).toBe('2m');
  });

  it('gives every alert a severity, a summary, a description with the value and a runbook hint', () => {
    expect(alerts.map((a) => a.alert).sort()).toEqual(
      [
        'CanaryRetryEfficiencyWorse',
        'CanarySuccessRateWorse',
        'CircuitBreakerOpen',
        'McpResilienceTelemetryDown',
        'RetryEfficiencyBelowTarget',
      ].sort(),
    );
    for (const a of alerts) {
      expect(['warning', 'critical'], a.alert).toContain(a.labels?.severity);
      expect(a.annotations?.summary, a.alert).toBeTruthy();
      expect(a.annotations?.description, a.alert).toBeTruthy();
      expect(a.annotations?.runbook, a.alert).toBeTruthy();
      expect(a.for, a.alert).toMatch(/^\d+m$/);
    }
    for (const name of ['RetryEfficiencyBelowTarget', 'CircuitBreakerOpen']) {
      const a = alert(name);
      expect(a.annotations!.summary).toContain('{{ $labels.mcp_resilience_server }}');
      expect(a.annotations!.description).toContain('{{ $value');
      // Per MCP server: grouped by mcp_resilience_server here, or built only from series recorded by mcp_resilience_server.
      const fromRecorded = seriesNames(a.expr).filter((n) => recorded.has(n));
      const perServer =
        labelUse(a.expr).names.includes('mcp_resilience_server') ||
        (fromRecorded.length > 0 &&
          fromRecorded.every((n) =>
            /^sum by \(mcp_resilience_server\)/.test(squash(recording.find((r) => r.record === n)!.expr)),
          ));
      expect(perServer, `${name} must be per mcp_resilience_server`).toBe(true);
    }
    // Series named inside annotation templates exist.
    for (const a of alerts) {
      for (const [, name] of JSON.stringify(a.annotations).matchAll(
        /(mcp_resilience_server:[a-z_]+:[a-z0-9_]+)/g,
      )) {
        expect(recorded.has(name!), name).toBe(true);
      }
    }
  });
});

describe('prometheus/tests (promtool unit tests)', () => {
  const files = listFiles('prometheus/tests').filter((f) => f.endsWith('.test.yml'));
  const suites = files.map((file) => ({ file, suite: readYaml<RuleTestFile>(file) }));
  const evaluationInterval = loadPrometheus().global?.evaluation_interval;

  it('test the rules file at the evaluation interval of prometheus.yml', () => {
    expect(files.length).toBeGreaterThan(0);
    for (const { file, suite } of suites) {
      expect(suite.rule_files.map((r) => posix.join(dirname(file), r))).toEqual([RULES_FILE]);
      expect(suite.evaluation_interval, file).toBe(evaluationInterval);
    }
  });

  it('cover every alert both firing and silent', () => {
    const cases = suites.flatMap(({ suite }) => suite.tests.flatMap((t) => t.alert_rule_test ?? []));
    for (const a of alerts) {
      const mine = cases.filter((c) => c.alertname === a.alert);
      expect(
        mine.some((c) => c.exp_alerts.length > 0),
        `${a.alert} is never expected to fire`,
      ).toBe(true);
      expect(
        mine.some((c) => c.exp_alerts.length === 0),
        `${a.alert} is never expected to stay silent`,
      ).toBe(true);
      for (const c of mine) {
        for (const e of c.exp_alerts) {
          expect(e.exp_labels?.severity).toBe(a.labels?.severity);
          expect(Object.keys(e.exp_annotations ?? {}).sort()).toEqual(
            Object.keys(a.annotations ?? {}).sort(),
          );
        }
      }
    }
  });

  it('cover the issue scenarios', () => {
    const names = suites.flatMap(({ suite }) => suite.tests.map((t) => t.name ?? ''));
    for (const scenario of [
      /50% efficiency/,
      /silent at 90%/,
      /below the volume guard/,
      /no retries/,
      /after 2 minutes open, not before/,
    ]) {
      expect(
        names.some((n) => scenario.test(n)),
        String(scenario),
      ).toBe(true);
    }
  });

  it('feed series with the contract names and labels', () => {
    for (const { file, suite } of suites) {
      for (const t of suite.tests) {
        for (const { series } of t.input_series) {
          const m = /^([A-Za-z_:][A-Za-z0-9_:]*)\{(.*)\}$/.exec(series);
          expect(m, `${file}: ${series}`).not.toBeNull();
          expect(PROM_METRICS.has(m![1]!) || PROMETHEUS_METRICS.has(m![1]!), `${file}: ${m![1]}`).toBe(true);
          for (const [, label] of m![2]!.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=/g)) {
            expect(PROM_LABELS.has(label!) || TARGET_LABELS.has(label!), `${file}: label ${label}`).toBe(
              true,
            );
          }
        }
      }
    }
  });
});
