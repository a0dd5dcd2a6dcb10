import {
  PROM_LABEL_MCP_RESILIENCE_SERVER,
  PROM_LABEL_MCP_RESILIENCE_VARIANT,
} from '@mcp-resilience/middleware/semconv';
import { twoProportionTest } from '../data/experiment-stats';
import { pickControl } from '../data/experiments';
import type { VariantCounts } from '../data/experiments-types';
import type { MetricsSource } from '../data/metrics-source';
import { windowSpan } from './window-span';

/**
 * The built-in canary alert (the Prometheus rules' CanarySuccessRateWorse and CanaryRetryEfficiencyWorse in one):
 * per MCP server, a candidate variant whose call success rate or retry efficiency over the last hour is
 * significantly worse than the control's (pooled two-proportion z-test, z < -1.96), with at least `minCalls`
 * calls (success rate) or `minRetries` retries (efficiency) in both variants, for `forMs`. Fixed settings (not
 * edited on the Alerts page); it stays silent without variants.
 */
export interface CanaryRule {
  readonly id: string;
  readonly name: string;
  readonly kind: 'canary';
  readonly enabled: boolean;
  readonly windowMs: number;
  readonly minCalls: number;
  readonly minRetries: number;
  /** The z-score below which the candidate is significantly worse. */
  readonly zThreshold: number;
  readonly forMs: number;
  readonly keepFiringForMs: number;
  readonly severity: 'warning' | 'critical';
}

export const CANARY_RULE: CanaryRule = Object.freeze({
  id: 'canary',
  name: 'CanaryWorseThanControl',
  kind: 'canary',
  enabled: true,
  windowMs: 3_600_000,
  minCalls: 100,
  minRetries: 20,
  zThreshold: -1.96,
  forMs: 10 * 60_000,
  keepFiringForMs: 0,
  severity: 'warning',
});

/** Servers looked at per evaluation, at most. */
export const MAX_CANARY_SERVERS = 100;

export interface CanaryCondition {
  readonly holds: boolean;
  readonly labels: Record<string, string>;
  readonly value: number | null;
  readonly summary: string;
}

const pts = (d: number) => `${d > 0 ? '+' : ''}${(d * 100).toFixed(1)} pts`;

/** One candidate against the control: which metrics are significantly worse, and by how much. */
export function canaryVerdict(rule: CanaryRule, candidate: VariantCounts, control: VariantCounts) {
  const worse: Array<{ metric: 'success rate' | 'retry efficiency'; diff: number; z: number }> = [];
  const check = (
    metric: 'success rate' | 'retry efficiency',
    x1: number,
    n1: number,
    x2: number,
    n2: number,
    min: number,
  ) => {
    if (n1 < min || n2 < min) return;
    const t = twoProportionTest(x1, n1, x2, n2);
    if (t && t.z < rule.zThreshold) worse.push({ metric, diff: t.diff, z: t.z });
  };
  check(
    'success rate',
    candidate.calls.success,
    candidate.calls.total,
    control.calls.success,
    control.calls.total,
    rule.minCalls,
  );
  check(
    'retry efficiency',
    candidate.retries.successful,
    candidate.retries.total,
    control.retries.successful,
    control.retries.total,
    rule.minRetries,
  );
  return worse;
}

/** The rule's condition per (server, candidate variant), from the same numbers the Experiments page shows. */
export async function canaryConditions(
  source: MetricsSource,
  rule: CanaryRule,
  now: number,
): Promise<Map<string, CanaryCondition>> {
  const q = { from: now - rule.windowMs, to: now + 1, filters: {} };
  const result = new Map<string, CanaryCondition>();
  // Without a canary anywhere in the window (the usual case), one read and nothing per server.
  if ((await source.experimentData(q)).variants.length < 2) return result;
  const servers = (await source.dimensions(q)).servers.slice(0, MAX_CANARY_SERVERS);
  // the span each server's numbers cover (its calls may have begun minutes ago, not a whole window ago)
  const starts = await source.dataStartByServer(q, 'calls');
  for (const server of servers) {
    const data = await source.experimentData({ ...q, filters: { server } });
    const controlName = pickControl(data.variants);
    const control = data.variants.find((v) => v.variant === controlName);
    if (!control) continue;
    for (const candidate of data.variants) {
      if (candidate === control) continue;
      const worse = canaryVerdict(rule, candidate, control);
      const labels = {
        alertname: rule.name,
        [PROM_LABEL_MCP_RESILIENCE_SERVER]: server,
        [PROM_LABEL_MCP_RESILIENCE_VARIANT]: candidate.variant,
        severity: rule.severity,
      };
      const key = `${rule.id}{${PROM_LABEL_MCP_RESILIENCE_SERVER}="${server}",${PROM_LABEL_MCP_RESILIENCE_VARIANT}="${candidate.variant}"}`;
      result.set(key, {
        holds: worse.length > 0,
        labels,
        value: worse[0]?.diff ?? null,
        summary:
          worse.length > 0
            ? `Canary ${candidate.variant} is worse than ${control.variant} on ${server} over ${windowSpan(rule.windowMs, starts.get(server), now)}: ${worse.map((w) => `${w.metric} ${pts(w.diff)} (z = ${w.z.toFixed(1)})`).join('; ')}`
            : `Canary ${candidate.variant} is not significantly worse than ${control.variant} on ${server}`,
      });
    }
  }
  return result;
}
