import type { Db } from '../store/database';
import { type AlertRule, BUILT_IN_RULE } from './rule';

export type AlertSource = 'rule' | 'alertmanager';
export type AlertStateName = 'pending' | 'firing' | 'resolved';

export interface AlertInstance {
  readonly key: string;
  readonly source: AlertSource;
  readonly ruleId: string;
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly state: AlertStateName;
  readonly activeAt: number | null;
  readonly firedAt: number | null;
  readonly lastTrueAt: number | null;
  readonly resolvedAt: number | null;
  readonly value: number | null;
  readonly summary: string;
  readonly updated: number;
}

export interface AlertHistoryEntry {
  readonly id: number;
  readonly at: number;
  readonly key: string;
  readonly source: AlertSource;
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly state: string;
  readonly value: number | null;
  readonly summary: string;
}

export type TargetKind = 'json' | 'slack';

export interface NotificationTarget {
  readonly id: number;
  readonly name: string;
  readonly url: string;
  readonly kind: TargetKind;
  readonly enabled: boolean;
}

export interface Delivery {
  readonly id: number;
  readonly at: number;
  readonly historyId: number;
  readonly target: string;
  readonly ok: boolean;
  readonly attempts: number;
  readonly detail: string;
}

type R = Record<string, unknown>;

const toInstance = (r: R): AlertInstance => ({
  key: r.key as string,
  source: r.source as AlertSource,
  ruleId: r.rule_id as string,
  name: r.name as string,
  labels: JSON.parse(r.labels as string) as Record<string, string>,
  state: r.state as AlertStateName,
  activeAt: (r.active_at as number | null) ?? null,
  firedAt: (r.fired_at as number | null) ?? null,
  lastTrueAt: (r.last_true_at as number | null) ?? null,
  resolvedAt: (r.resolved_at as number | null) ?? null,
  value: (r.value as number | null) ?? null,
  summary: r.summary as string,
  updated: r.updated as number,
});

const toHistory = (r: R): AlertHistoryEntry => ({
  id: r.id as number,
  at: r.at as number,
  key: r.key as string,
  source: r.source as AlertSource,
  name: r.name as string,
  labels: JSON.parse(r.labels as string) as Record<string, string>,
  state: r.state as string,
  value: (r.value as number | null) ?? null,
  summary: r.summary as string,
});

/** How much alerting state is kept (`MAX_ALERT_INSTANCES`, `MAX_ALERT_HISTORY`, `ALERT_RESOLVED_KEEP_MS`). */
export interface AlertStoreLimits {
  /** Alert instances kept; resolved ones are dropped first, then new ones refused. */
  readonly maxInstances: number;
  /** History rows (and delivery rows) kept, newest first. */
  readonly maxHistory: number;
  /** A resolved instance is listed this long after it resolved. */
  readonly resolvedKeepMs: number;
  /**
   * A firing Alertmanager alert that Alertmanager did not send again for this long is taken as resolved (its
   * resolution was lost): it no longer holds a slot under `maxInstances` for good.
   */
  readonly alertmanagerStaleMs: number;
}

export const ALERT_STORE_DEFAULTS: AlertStoreLimits = Object.freeze({
  maxInstances: 1000,
  maxHistory: 10_000,
  resolvedKeepMs: 86_400_000,
  alertmanagerStaleMs: 12 * 3_600_000,
});

/** Alert rules, notification targets, alert instances and history, in the embedded database. */
export class AlertStore {
  readonly limits: AlertStoreLimits;

  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
    limits: Partial<AlertStoreLimits> = {},
  ) {
    this.limits = { ...ALERT_STORE_DEFAULTS, ...limits };
  }

  /**
   * Drops history and deliveries older than `before` (epoch ms) or beyond `maxHistory`, and resolved instances
   * past `resolvedKeepMs`; returns how many rows went.
   */
  prune(before: number): number {
    const db = this.db;
    const max = this.limits.maxHistory;
    return (
      this.expireStale() +
      db.prepare('DELETE FROM alert_history WHERE at < ?').run(before).changes +
      db.prepare('DELETE FROM alert_deliveries WHERE at < ?').run(before).changes +
      db.prepare('DELETE FROM alert_history WHERE id <= (SELECT MAX(id) FROM alert_history) - ?').run(max)
        .changes +
      db
        .prepare('DELETE FROM alert_deliveries WHERE id <= (SELECT MAX(id) FROM alert_deliveries) - ?')
        .run(max).changes +
      db
        .prepare("DELETE FROM alert_instances WHERE state = 'resolved' AND updated < ?")
        .run(this.now() - this.limits.resolvedKeepMs).changes
    );
  }

  /**
   * Firing Alertmanager alerts not refreshed for `alertmanagerStaleMs` become resolved (a history row each,
   * `resolved_at` now, `updated` kept so that they are the first dropped); returns how many.
   */
  expireStale(): number {
    const now = this.now();
    const cutoff = now - this.limits.alertmanagerStaleMs;
    const stale = "source = 'alertmanager' AND state = 'firing' AND updated < ?";
    const hours = Math.round((this.limits.alertmanagerStaleMs / 3_600_000) * 10) / 10;
    this.db
      .prepare(
        `INSERT INTO alert_history (at, key, source, name, labels, state, value, summary)
         SELECT ?, key, source, name, labels, 'resolved', NULL, ? FROM alert_instances WHERE ${stale}`,
      )
      .run(
        now,
        `not sent again by Alertmanager for ${hours} h (ALERTMANAGER_STALE_MS): taken as resolved`,
        cutoff,
      );
    return this.db
      .prepare(`UPDATE alert_instances SET state = 'resolved', resolved_at = ? WHERE ${stale}`)
      .run(now, cutoff).changes;
  }

  /**
   * How many NEW instances may be added now (under `maxInstances`), after dropping the oldest resolved
   * instances to make room. Existing instances can always be updated.
   */
  room(): number {
    const count = () =>
      (this.db.prepare('SELECT COUNT(*) AS n FROM alert_instances').get() as { n: number }).n;
    const max = this.limits.maxInstances;
    let before = count();
    if (before < max) return max - before;
    // stale firing Alertmanager alerts are resolved, so droppable
    if (this.expireStale() > 0) before = count();
    this.db
      .prepare(
        `DELETE FROM alert_instances WHERE key IN (SELECT key FROM alert_instances WHERE state = 'resolved'
         ORDER BY updated LIMIT ?)`,
      )
      .run(before - max + Math.max(1, Math.ceil(max / 10)));
    return Math.max(0, max - count());
  }

  rules(): AlertRule[] {
    const rows = this.db.prepare('SELECT json FROM alert_rules ORDER BY id').all() as Array<{ json: string }>;
    const rules = rows.map(
      (r) => ({ ...BUILT_IN_RULE, ...(JSON.parse(r.json) as Partial<AlertRule>) }) as AlertRule,
    );
    if (!rules.some((r) => r.id === BUILT_IN_RULE.id)) rules.unshift(BUILT_IN_RULE);
    return rules;
  }

  rule(id: string): AlertRule | undefined {
    return this.rules().find((r) => r.id === id);
  }

  saveRule(rule: AlertRule): void {
    this.db
      .prepare(
        'INSERT INTO alert_rules (id, json, updated) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET json = excluded.json, updated = excluded.updated',
      )
      .run(rule.id, JSON.stringify(rule), this.now());
  }

  targets(): NotificationTarget[] {
    return (this.db.prepare('SELECT * FROM alert_targets ORDER BY id').all() as R[]).map((r) => ({
      id: r.id as number,
      name: r.name as string,
      url: r.url as string,
      kind: r.kind as TargetKind,
      enabled: r.enabled === 1,
    }));
  }

  addTarget(t: { name: string; url: string; kind: TargetKind }): number {
    return Number(
      this.db
        .prepare('INSERT INTO alert_targets (name, url, kind, enabled, created) VALUES (?, ?, ?, 1, ?)')
        .run(t.name, t.url, t.kind, this.now()).lastInsertRowid,
    );
  }

  removeTarget(id: number): void {
    this.db.prepare('DELETE FROM alert_targets WHERE id = ?').run(id);
  }

  instance(key: string): AlertInstance | undefined {
    const r = this.db.prepare('SELECT * FROM alert_instances WHERE key = ?').get(key) as R | undefined;
    return r ? toInstance(r) : undefined;
  }

  instances(): AlertInstance[] {
    return (
      this.db
        .prepare(
          "SELECT * FROM alert_instances ORDER BY CASE state WHEN 'firing' THEN 0 WHEN 'pending' THEN 1 ELSE 2 END, updated DESC LIMIT 200",
        )
        .all() as R[]
    ).map(toInstance);
  }

  /** The firing alerts, longest-firing first, at most `limit` (see `firingCount` for how many there are). */
  firing(limit = 100): AlertInstance[] {
    return (
      this.db
        .prepare("SELECT * FROM alert_instances WHERE state = 'firing' ORDER BY fired_at LIMIT ?")
        .all(limit) as R[]
    ).map(toInstance);
  }

  firingCount(): number {
    return (
      this.db.prepare("SELECT COUNT(*) AS n FROM alert_instances WHERE state = 'firing'").get() as {
        n: number;
      }
    ).n;
  }

  upsertInstance(i: AlertInstance): void {
    this.db
      .prepare(
        `INSERT INTO alert_instances (key, source, rule_id, name, labels, state, active_at, fired_at, last_true_at, resolved_at, value, summary, updated)
         VALUES (@key, @source, @ruleId, @name, @labels, @state, @activeAt, @firedAt, @lastTrueAt, @resolvedAt, @value, @summary, @updated)
         ON CONFLICT (key) DO UPDATE SET source = excluded.source, rule_id = excluded.rule_id, name = excluded.name,
           labels = excluded.labels, state = excluded.state, active_at = excluded.active_at, fired_at = excluded.fired_at,
           last_true_at = excluded.last_true_at, resolved_at = excluded.resolved_at, value = excluded.value,
           summary = excluded.summary, updated = excluded.updated`,
      )
      .run({ ...i, labels: JSON.stringify(i.labels) });
  }

  removeInstance(key: string): void {
    this.db.prepare('DELETE FROM alert_instances WHERE key = ?').run(key);
  }

  addHistory(e: Omit<AlertHistoryEntry, 'id'>): number {
    return Number(
      this.db
        .prepare(
          'INSERT INTO alert_history (at, key, source, name, labels, state, value, summary) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
        )
        .run(e.at, e.key, e.source, e.name, JSON.stringify(e.labels), e.state, e.value, e.summary)
        .lastInsertRowid,
    );
  }

  history(limit = 100): AlertHistoryEntry[] {
    return (
      this.db.prepare('SELECT * FROM alert_history ORDER BY at DESC, id DESC LIMIT ?').all(limit) as R[]
    ).map(toHistory);
  }

  /**
   * The history of a time range [from, to), newest first, at most `limit` rows, optionally of some states
   * only: a chart of a past range gets that range's rows, however many came after it.
   */
  historyBetween(
    from: number,
    to: number,
    limit: number,
    states: readonly string[] = [],
  ): AlertHistoryEntry[] {
    const inStates = states.length > 0 ? ` AND state IN (${states.map(() => '?').join(', ')})` : '';
    return (
      this.db
        .prepare(
          `SELECT * FROM alert_history WHERE at >= ? AND at < ?${inStates} ORDER BY at DESC, id DESC LIMIT ?`,
        )
        .all(from, to, ...states, limit) as R[]
    ).map(toHistory);
  }

  addDelivery(d: Omit<Delivery, 'id'>): void {
    this.db
      .prepare(
        'INSERT INTO alert_deliveries (at, history_id, target, ok, attempts, detail) VALUES (?, ?, ?, ?, ?, ?)',
      )
      .run(d.at, d.historyId, d.target, d.ok ? 1 : 0, d.attempts, d.detail);
  }

  deliveries(limit = 50): Delivery[] {
    return (this.db.prepare('SELECT * FROM alert_deliveries ORDER BY id DESC LIMIT ?').all(limit) as R[]).map(
      (r) => ({
        id: r.id as number,
        at: r.at as number,
        historyId: r.history_id as number,
        target: r.target as string,
        ok: r.ok === 1,
        attempts: r.attempts as number,
        detail: r.detail as string,
      }),
    );
  }
}

/** A webhook URL for display and logs: scheme, host and a hint of the path, never the secret parts. */
export function maskUrl(url: string): string {
  try {
    const u = new URL(url);
    const path = u.pathname.length > 1 ? '/…' : '';
    return `${u.protocol}//${u.host}${path}`;
  } catch {
    return '(invalid url)';
  }
}
