import { PROM_LABEL_MCP_RESILIENCE_SERVER } from '@mcp-resilience/middleware/semconv';
import type { MetricsSource } from '../data/metrics-source';
import { type AlertInstance, type AlertStore, maskUrl } from './alert-store';
import type { AlertmanagerAlert } from './alertmanager';
import { CANARY_RULE, type CanaryRule, canaryConditions } from './canary-rule';
import { efficiencySummary } from './efficiency-summary';
import type { Notifier } from './notifier';
import type { AlertRule } from './rule';
import { type InstanceState, step } from './state-machine';

export interface AlertChange {
  readonly key: string;
  readonly state: 'pending' | 'firing' | 'resolved' | 'cleared';
}

export interface AlertServiceOptions {
  readonly store: AlertStore;
  readonly source: MetricsSource;
  readonly notify: Notifier;
  readonly now?: () => number;
  readonly dashboardUrl?: string | undefined;
  readonly onChange?: (changes: AlertChange[]) => void;
  readonly log?: (message: string) => void;
}

/** Clocks differ: a firing alert counts as ended once its `endsAt` is this far in the past. */
const ENDS_AT_SKEW_MS = 5 * 60_000;

/**
 * Evaluates the alert rules against the metrics source (the same numbers the pages show), keeps their
 * pending → firing → resolved states and history, and sends notifications for firing and resolved.
 * Alertmanager's alerts (POST /api/alerts/webhook) join the same list.
 */
export class AlertService {
  private readonly now: () => number;
  private evaluating: Promise<void> | undefined;
  /** Notifications in flight (tests and shutdown wait for them). */
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly o: AlertServiceOptions) {
    this.now = o.now ?? Date.now;
  }

  /** One evaluation of every rule. Concurrent calls share the running one. */
  evaluate(): Promise<void> {
    this.evaluating ??= this.run().finally(() => {
      this.evaluating = undefined;
    });
    return this.evaluating;
  }

  /** Resolves when every notification sent so far has been delivered or given up. */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  private async run() {
    const now = this.now();
    const changes: AlertChange[] = [];
    const rules: Array<AlertRule | CanaryRule> = [...this.o.store.rules(), CANARY_RULE];
    for (const rule of rules) {
      const results = !rule.enabled
        ? new Map<string, Condition>()
        : rule.kind === 'canary'
          ? await canaryConditions(this.o.source, rule, now)
          : await this.conditions(rule, now);
      const existing = this.o.store.instances().filter((i) => i.source === 'rule' && i.ruleId === rule.id);
      const keys = new Set([
        ...results.keys(),
        ...existing.filter((i) => i.state !== 'resolved').map((i) => i.key),
      ]);
      for (const key of keys) {
        const cond = results.get(key);
        const prev = this.o.store.instance(key);
        const prevState: InstanceState =
          prev && prev.state !== 'resolved'
            ? {
                state: prev.state,
                activeAt: prev.activeAt ?? undefined,
                firedAt: prev.firedAt ?? undefined,
                lastTrueAt: prev.lastTrueAt ?? undefined,
              }
            : { state: 'inactive' };
        const { next, transitions } = step(prevState, cond?.holds === true, now, rule);
        const labels = cond?.labels ?? prev?.labels ?? {};
        const summary = cond?.summary ?? prev?.summary ?? '';
        const value = cond?.value ?? prev?.value ?? null;
        if (next.state === 'inactive') {
          if (transitions.includes('resolved') && prev) {
            this.o.store.upsertInstance({
              ...prev,
              state: 'resolved',
              resolvedAt: now,
              updated: now,
              summary,
              value,
            });
          } else if (prev && prev.state !== 'resolved') this.o.store.removeInstance(key);
        } else {
          this.o.store.upsertInstance({
            key,
            source: 'rule',
            ruleId: rule.id,
            name: rule.name,
            labels,
            state: next.state,
            activeAt: next.activeAt ?? null,
            firedAt: next.firedAt ?? null,
            lastTrueAt: next.lastTrueAt ?? null,
            resolvedAt: null,
            value,
            summary,
            updated: now,
          });
        }
        for (const t of transitions) {
          changes.push({ key, state: t });
          if (t === 'cleared') continue;
          const entry = {
            at: now,
            key,
            source: 'rule' as const,
            name: rule.name,
            labels,
            state: t,
            value,
            summary,
          };
          const id = this.o.store.addHistory(entry);
          if (t === 'firing' || t === 'resolved') {
            this.dispatch(t, { ...entry, id }, next.activeAt ?? prev?.activeAt ?? null);
          }
        }
      }
    }
    if (changes.length > 0) this.o.onChange?.(changes);
  }

  private async conditions(rule: AlertRule, now: number): Promise<Map<string, Condition>> {
    const longQ = { from: now - rule.longWindowMs, to: now + 1, filters: {} };
    const long = await this.o.source.retryTotals(longQ);
    // the span each server's numbers cover: its retries may have begun minutes ago, not a whole window ago
    const starts = long.length > 0 ? await this.o.source.dataStartByServer(longQ, 'retries') : new Map();
    const short = await this.o.source.retryTotals({
      from: now - rule.shortWindowMs,
      to: now + 1,
      filters: {},
    });
    const result = new Map<string, Condition>();
    for (const l of long) {
      const s = short.find((x) => x.server === l.server);
      const longEff = l.total > 0 ? l.successful / l.total : Number.NaN;
      const shortEff = s && s.total > 0 ? s.successful / s.total : Number.NaN;
      // NaN (no retries) never compares below the threshold, as in PromQL.
      const holds = l.total >= rule.minRetries && longEff < rule.threshold && shortEff < rule.threshold;
      const server = l.server || '(none)';
      const labels = {
        alertname: rule.name,
        [PROM_LABEL_MCP_RESILIENCE_SERVER]: server,
        severity: rule.severity,
      };
      result.set(`${rule.id}{${PROM_LABEL_MCP_RESILIENCE_SERVER}="${server}"}`, {
        holds,
        labels,
        value: Number.isNaN(longEff) ? null : longEff,
        summary: efficiencySummary(
          rule,
          { server, longEff, shortEff, retries: l.total, dataStart: starts.get(l.server) },
          now,
        ),
      });
    }
    return result;
  }

  private dispatch(
    status: 'firing' | 'resolved',
    entry: Parameters<AlertStore['addHistory']>[0] & { id: number },
    startsAt: number | null,
  ) {
    for (const target of this.o.store.targets()) {
      if (!target.enabled) continue;
      const p = this.o
        .notify(target, { status, entry, startsAt, dashboardUrl: this.o.dashboardUrl })
        .then((r) => {
          this.o.store.addDelivery({
            at: this.now(),
            historyId: entry.id,
            target: `${target.name} (${maskUrl(target.url)})`,
            ok: r.ok,
            attempts: r.attempts,
            detail: r.detail,
          });
          if (!r.ok) this.o.log?.(`alert notification to ${target.name} failed: ${r.detail}`);
        })
        .catch((error) => this.o.log?.(`alert notification error: ${String(error)}`))
        .finally(() => this.pending.delete(p));
      this.pending.add(p);
    }
  }

  /**
   * Alertmanager's alerts (from the Prometheus setup), shown beside the built-in rule's. A new alert beyond
   * the instance cap is dropped (counted in `dropped`); updates of known alerts are always taken.
   */
  receiveAlertmanager(alerts: readonly AlertmanagerAlert[]): { received: number; dropped: number } {
    const now = this.now();
    const changes: AlertChange[] = [];
    let dropped = 0;
    let room: number | undefined;
    for (const a of alerts) {
      const key = `alertmanager:${a.fingerprint}`;
      const prev = this.o.store.instance(key);
      if (!prev) {
        room ??= this.o.store.room();
        if (room <= 0) {
          dropped++;
          continue;
        }
        room--;
      }
      // A firing alert already past its end (a late or repeated delivery) is resolved (Alertmanager's rule).
      const ended = a.endsAt !== null && a.endsAt < now - ENDS_AT_SKEW_MS;
      const state = a.status === 'firing' && ended ? 'resolved' : a.status;
      const name = a.labels.alertname ?? 'alert';
      const summary = a.annotations.summary ?? a.annotations.description ?? '';
      const instance: AlertInstance = {
        key,
        source: 'alertmanager',
        ruleId: '',
        name,
        labels: a.labels,
        state,
        activeAt: a.startsAt,
        firedAt: state === 'firing' ? (prev?.firedAt ?? a.startsAt ?? now) : (prev?.firedAt ?? a.startsAt),
        lastTrueAt: state === 'firing' ? now : (prev?.lastTrueAt ?? null),
        resolvedAt: state === 'resolved' ? (a.endsAt ?? now) : null,
        value: null,
        summary,
        updated: now,
      };
      this.o.store.upsertInstance(instance);
      if (prev?.state !== state) {
        this.o.store.addHistory({
          at: now,
          key,
          source: 'alertmanager',
          name,
          labels: a.labels,
          state,
          value: null,
          summary,
        });
        changes.push({ key, state });
      }
    }
    if (changes.length > 0) this.o.onChange?.(changes);
    if (dropped > 0)
      this.o.log?.(
        `${dropped} Alertmanager alert(s) dropped: ${this.o.store.limits.maxInstances} alert instances kept (MAX_ALERT_INSTANCES)`,
      );
    return { received: alerts.length - dropped, dropped };
  }
}

interface Condition {
  readonly holds: boolean;
  readonly labels: Record<string, string>;
  readonly value: number | null;
  readonly summary: string;
}
