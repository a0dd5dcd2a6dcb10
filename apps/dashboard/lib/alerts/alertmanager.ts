export interface AlertmanagerAlert {
  readonly status: 'firing' | 'resolved';
  readonly labels: Record<string, string>;
  readonly annotations: Record<string, string>;
  readonly startsAt: number | null;
  readonly endsAt: number | null;
  readonly fingerprint: string;
}

export class PayloadError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Alerts taken per request, labels/annotations per alert, characters per name and value. */
export const PAYLOAD_LIMITS = { alerts: 1000, entries: 64, length: 1024 } as const;

const cut = (s: string) => (s.length > PAYLOAD_LIMITS.length ? s.slice(0, PAYLOAD_LIMITS.length) : s);

function strings(v: unknown, field: string): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (!isObj(v)) throw new PayloadError(field, `${field} must be an object of strings`);
  const entries = Object.entries(v);
  if (entries.length > PAYLOAD_LIMITS.entries)
    throw new PayloadError(field, `${field} has more than ${PAYLOAD_LIMITS.entries} entries`);
  const out: Record<string, string> = {};
  for (const [k, x] of entries) out[cut(k)] = cut(typeof x === 'string' ? x : String(x));
  return out;
}

function time(v: unknown): number | null {
  if (typeof v !== 'string') return null;
  const t = Date.parse(v);
  // Alertmanager sends 0001-01-01T00:00:00Z for "no end".
  return Number.isFinite(t) && t > 0 ? t : null;
}

function fingerprintOf(labels: Record<string, string>): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}=${labels[k]}`)
    .join(',');
}

/** Parses Alertmanager's webhook payload (version 4); errors name the offending field. */
export function parseAlertmanagerPayload(body: unknown): AlertmanagerAlert[] {
  if (!isObj(body)) throw new PayloadError('body', 'body must be a JSON object');
  if (!Array.isArray(body.alerts)) throw new PayloadError('alerts', 'alerts must be an array');
  if (body.alerts.length > PAYLOAD_LIMITS.alerts)
    throw new PayloadError('alerts', `more than ${PAYLOAD_LIMITS.alerts} alerts in one request`);
  return body.alerts.map((a, i) => {
    if (!isObj(a)) throw new PayloadError(`alerts[${i}]`, `alerts[${i}] must be an object`);
    const status = a.status ?? body.status;
    if (status !== 'firing' && status !== 'resolved') {
      throw new PayloadError(`alerts[${i}].status`, `alerts[${i}].status must be firing or resolved`);
    }
    const labels = strings(a.labels, `alerts[${i}].labels`);
    return {
      status,
      labels,
      annotations: strings(a.annotations, `alerts[${i}].annotations`),
      startsAt: time(a.startsAt),
      endsAt: time(a.endsAt),
      fingerprint:
        typeof a.fingerprint === 'string' && a.fingerprint !== ''
          ? cut(a.fingerprint)
          : cut(fingerprintOf(labels)),
    };
  });
}
