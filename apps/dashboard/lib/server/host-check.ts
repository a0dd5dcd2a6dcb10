import { isIP } from 'node:net';

export type HostVerdict = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** The host name of a `Host` header value (`name:port`, `[v6]:port`), lower-case, without the port. */
export function hostName(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  const colon = h.lastIndexOf(':');
  return colon >= 0 ? h.slice(0, colon) : h;
}

/**
 * Which `Host` values the dashboard answers (against DNS rebinding: a page on evil.example whose name is made
 * to resolve to this server sends `Host: evil.example` with a matching `Origin`, so an Origin check alone
 * passes). Accepted: IP literals and `localhost` (a rebinding page cannot use them as its origin), single-label
 * names (`dashboard` in a compose network: public DNS has none), the host of `PUBLIC_URL`, and `ALLOWED_HOSTS`.
 */
export function createHostCheck(options: {
  readonly publicUrl?: string | undefined;
  readonly allowedHosts?: readonly string[];
}) {
  const allowed = new Set((options.allowedHosts ?? []).map((h) => hostName(h)));
  if (options.publicUrl) allowed.add(new URL(options.publicUrl).hostname.toLowerCase());
  return function check(header: string | undefined): HostVerdict {
    if (header === undefined || header === '') return { ok: true }; // HTTP/1.0: no name to rebind
    const name = hostName(header);
    const bare = name.replace(/^\[|\]$/g, '');
    if (isIP(bare) !== 0) return { ok: true };
    if (name === 'localhost' || name.endsWith('.localhost')) return { ok: true };
    if (/^[a-z0-9_-]+$/.test(name)) return { ok: true };
    if (allowed.has(name)) return { ok: true };
    return {
      ok: false,
      reason: `Host '${name.slice(0, 100)}' is not this dashboard's: set PUBLIC_URL to its external URL, or add the name to ALLOWED_HOSTS`,
    };
  };
}
