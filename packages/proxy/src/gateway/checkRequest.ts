import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** What the gateway accepts from a host's HTTP request before it reads the body. */
export interface AccessPolicy {
  /** Host header values allowed (`127.0.0.1:8787`, `localhost:8787`...). */
  readonly hosts: ReadonlySet<string>;
  /** Origins allowed when a request has an `Origin` header (browsers); requests without one are not browsers. */
  readonly origins: ReadonlySet<string>;
  /** A bearer token every request must present, when set. */
  readonly token?: string | undefined;
}

export type Verdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly status: number; readonly message: string };

/**
 * DNS-rebinding protection and authentication: the `Host` header must name the gateway itself, an `Origin`
 * (sent by browsers) must be an allowed one, and with a token, `Authorization: Bearer <token>` must match.
 */
export function checkRequest(req: IncomingMessage, policy: AccessPolicy): Verdict {
  const host = req.headers.host;
  if (host === undefined || !policy.hosts.has(host.toLowerCase())) {
    return { ok: false, status: 403, message: `Forbidden: Host header '${host ?? ''}' is not this gateway` };
  }
  const origin = req.headers.origin;
  if (origin !== undefined && !policy.origins.has(origin.toLowerCase())) {
    return {
      ok: false,
      status: 403,
      message: `Forbidden: Origin '${origin}' is not allowed (--allowed-origin)`,
    };
  }
  if (policy.token !== undefined) {
    const given = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
    if (!sameSecret(given, policy.token)) {
      return { ok: false, status: 401, message: 'Unauthorized: a valid bearer token is required' };
    }
  }
  return { ok: true };
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
