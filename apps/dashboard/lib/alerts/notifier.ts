import { createResilience, isResilienceError, type Resilience } from '@mcp-resilience/middleware';
import { type AddressPolicy, createAddressPolicy } from './address-policy';
import type { AlertHistoryEntry, NotificationTarget } from './alert-store';
import { maskUrl } from './alert-store';
import { slackEscape, slackLink } from './slack-text';
import {
  defaultResolve,
  postWebhook,
  type Resolve,
  type ResolvedTarget,
  resolveTarget,
  TargetRefusedError,
} from './webhook-request';

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

/**
 * The generic JSON body (Alertmanager-like; JSON-encoded, nothing to escape), or Slack's `{ text }` with every
 * piece of outside text escaped for Slack's markup (`slackEscape`).
 */
export function notificationBody(kind: NotificationTarget['kind'], n: Notification): unknown {
  const e = n.entry;
  if (kind === 'slack') {
    const icon = n.status === 'firing' ? ':red_circle:' : ':large_green_circle:';
    // Names, labels and summaries come from telemetry or Alertmanager: escaped, so `<!channel>` stays text.
    const labels = Object.entries(e.labels)
      .filter(([k]) => k !== 'alertname')
      .map(([k, v]) => `${slackEscape(k)}=${slackEscape(String(v))}`)
      .join(', ');
    const link = n.dashboardUrl ? ` ${slackLink(`${n.dashboardUrl}/alerts`, 'open dashboard')}` : '';
    return {
      text: `${icon} *[${n.status.toUpperCase()}] ${slackEscape(e.name)}* (${labels}) ${slackEscape(e.summary)}${link}`,
    };
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
  readonly resilience?: Resilience;
  /** Which addresses targets may reach (default: public addresses only). */
  readonly policy?: AddressPolicy;
  /** DNS resolution (tests inject one). */
  readonly resolve?: Resolve;
  /** One attempt's deadline: connect, send and answer. */
  readonly attemptTimeoutMs?: number;
  /** Bytes of a webhook's answer read at most (the rest is dropped). */
  readonly maxResponseBytes?: number;
}

export const NOTIFIER_DEFAULTS = { attemptTimeoutMs: 5_000, maxResponseBytes: 64 * 1024 } as const;

/** A DNS failure as the classifier knows it (retryable network fault). */
class ResolveError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ResolveError';
  }
}

/**
 * Sends alert notifications to webhooks through the project's own middleware: 5xx, timeouts and network faults
 * are retried with backoff, 429 waits for Retry-After, 4xx fail at once, and a dead webhook host gets its
 * circuit breaker opened instead of being hammered. The target's address is checked against the policy at send
 * time, after DNS resolution, and pinned for every attempt of the send (no DNS rebinding); redirects are not
 * followed.
 */
export function createNotifier(options: NotifierOptions = {}) {
  const policy = options.policy ?? createAddressPolicy();
  const resolve = options.resolve ?? defaultResolve;
  const resilience =
    options.resilience ??
    createResilience({
      maxAttempts: 4,
      backoffBaseMs: 200,
      backoffMaxMs: 5_000,
      timeoutMs: 30_000,
      retryAfterMaxMs: 10_000,
      rules: [
        {
          name: 'webhook-target-refused',
          errorName: 'TargetRefusedError',
          classify: { class: 'non_retryable', type: 'forbidden', execution: 'not_sent' },
        },
      ],
    });
  const attemptTimeoutMs = options.attemptTimeoutMs ?? NOTIFIER_DEFAULTS.attemptTimeoutMs;
  const maxResponseBytes = options.maxResponseBytes ?? NOTIFIER_DEFAULTS.maxResponseBytes;

  return async function send(target: NotificationTarget, n: Notification): Promise<DeliveryResult> {
    let attempts = 0;
    const host = (() => {
      try {
        return new URL(target.url).host;
      } catch {
        return 'invalid';
      }
    })();
    let pinned: Extract<ResolvedTarget, { ok: true }> | undefined;
    try {
      const status = await resilience.execute(
        async ({ signal, attempt }) => {
          attempts = attempt;
          if (!pinned) {
            const resolved = await resolveTarget(target.url, policy, resolve, attemptTimeoutMs);
            if (!resolved.ok) {
              if (resolved.dns) throw new ResolveError(resolved.dns, resolved.reason);
              throw new TargetRefusedError(resolved.reason);
            }
            pinned = resolved;
          }
          const res = await postWebhook(
            pinned,
            JSON.stringify(notificationBody(target.kind, n)),
            { 'content-type': 'application/json', 'user-agent': 'mcp-resilience-dashboard' },
            { timeoutMs: attemptTimeoutMs, maxResponseBytes, signal },
          );
          if (res.status < 200 || res.status > 299) throw new WebhookHttpError(res.status, res.headers);
          return res.status;
        },
        { endpoint: `webhook:${host}`, operation: 'alert.notify', idempotent: true },
      );
      return { ok: true, attempts, detail: `HTTP ${status}` };
    } catch (error) {
      const cause = isResilienceError(error) ? error.cause : error;
      const refused = cause instanceof TargetRefusedError ? `refused: ${cause.message}; ` : '';
      const reason = isResilienceError(error)
        ? `${refused}${error.classification.type} (${error.classification.class}) after ${error.attempts} attempt(s)`
        : String((error as Error)?.message ?? error);
      return { ok: false, attempts, detail: `${reason} → ${maskUrl(target.url)}` };
    }
  };
}

export type Notifier = ReturnType<typeof createNotifier>;
