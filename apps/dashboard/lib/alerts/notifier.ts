import { createResilience, isResilienceError, type Resilience } from '@mcp-resilience/middleware';
import type { AlertHistoryEntry, NotificationTarget } from './alert-store';
import { maskUrl } from './alert-store';

export interface Notification {
  readonly status: 'firing' | 'resolved';
  readonly entry: AlertHistoryEntry;
  readonly startsAt: number | null;
  readonly dashboardUrl?: string | undefined;
}

export interface DeliveryResult {
  readonly ok: boolean;
  readonly attempts: number;
  readonly detail: string;
}

/** A non-2xx answer, shaped so the middleware's classifier reads its status and Retry-After. */
class WebhookHttpError extends Error {
  constructor(
    readonly status: number,
    readonly headers: Record<string, string>,
  ) {
    super(`webhook answered HTTP ${status}`);
    this.name = 'WebhookHttpError';
  }
}

/** The generic JSON body (Alertmanager-like), or Slack's `{ text }`. */
export function notificationBody(kind: NotificationTarget['kind'], n: Notification): unknown {
  const e = n.entry;
  if (kind === 'slack') {
    const icon = n.status === 'firing' ? ':red_circle:' : ':large_green_circle:';
    const labels = Object.entries(e.labels)
      .filter(([k]) => k !== 'alertname')
      .map(([k, v]) => `${k}=${v}`)
      .join(', ');
    const link = n.dashboardUrl ? ` <${n.dashboardUrl}/alerts|open dashboard>` : '';
    return { text: `${icon} *[${n.status.toUpperCase()}] ${e.name}* (${labels}) ${e.summary}${link}` };
  }
  return {
    version: '1',
    source: 'mcp-resilience-dashboard',
    status: n.status,
    alert: {
      name: e.name,
      key: e.key,
      labels: e.labels,
      summary: e.summary,
      value: e.value,
      startsAt: n.startsAt === null ? null : new Date(n.startsAt).toISOString(),
      endsAt: n.status === 'resolved' ? new Date(e.at).toISOString() : null,
    },
    dashboardUrl: n.dashboardUrl ?? null,
  };
}

export interface NotifierOptions {
  readonly fetch?: typeof fetch;
  readonly resilience?: Resilience;
  /** Per-attempt time limit. */
  readonly attemptTimeoutMs?: number;
}

/**
 * Sends alert notifications to webhooks through the project's own middleware: 5xx, timeouts and network faults
 * are retried with backoff, 429 waits for Retry-After, 4xx fail at once, and a dead webhook host gets its
 * circuit breaker opened instead of being hammered.
 */
export function createNotifier(options: NotifierOptions = {}) {
  const doFetch = options.fetch ?? globalThis.fetch;
  const resilience =
    options.resilience ??
    createResilience({
      maxAttempts: 4,
      backoffBaseMs: 200,
      backoffMaxMs: 5_000,
      timeoutMs: 30_000,
      retryAfterMaxMs: 10_000,
    });
  const attemptTimeoutMs = options.attemptTimeoutMs ?? 5_000;

  return async function send(target: NotificationTarget, n: Notification): Promise<DeliveryResult> {
    let attempts = 0;
    const host = (() => {
      try {
        return new URL(target.url).host;
      } catch {
        return 'invalid';
      }
    })();
    try {
      const status = await resilience.execute(
        async ({ signal, attempt }) => {
          attempts = attempt;
          const res = await doFetch(target.url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'user-agent': 'mcp-resilience-dashboard' },
            body: JSON.stringify(notificationBody(target.kind, n)),
            signal: AbortSignal.any([signal, AbortSignal.timeout(attemptTimeoutMs)]),
          });
          await res.arrayBuffer().catch(() => undefined);
          if (!res.ok) throw new WebhookHttpError(res.status, Object.fromEntries(res.headers));
          return res.status;
        },
        { endpoint: `webhook:${host}`, operation: 'alert.notify', idempotent: true },
      );
      return { ok: true, attempts, detail: `HTTP ${status}` };
    } catch (error) {
      const reason = isResilienceError(error)
        ? `${error.classification.type} (${error.classification.class}) after ${error.attempts} attempt(s)`
        : String((error as Error)?.message ?? error);
      return { ok: false, attempts, detail: `${reason} → ${maskUrl(target.url)}` };
    }
  };
}

export type Notifier = ReturnType<typeof createNotifier>;
