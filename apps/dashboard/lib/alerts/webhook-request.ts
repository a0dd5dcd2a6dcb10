import { lookup as dnsLookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { AddressPolicy } from './address-policy';

/** Resolves a host name to every address it has (A and AAAA). */
export type Resolve = (host: string) => Promise<ReadonlyArray<{ address: string; family: number }>>;

export const defaultResolve: Resolve = (host) => dnsLookup(host, { all: true, verbatim: true });

/** A lookup taking longer is given up (the system resolver has no deadline of its own we could set). */
export const DEFAULT_RESOLVE_TIMEOUT_MS = 5_000;

/** `resolve(host)`, or an `ETIMEOUT` error naming the host after `timeoutMs` (the timer is cleared either way). */
async function resolveWithin(
  resolve: Resolve,
  host: string,
  timeoutMs: number,
): Promise<ReadonlyArray<{ address: string; family: number }>> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          Object.assign(new Error(`DNS lookup of ${host} took more than ${timeoutMs} ms`), {
            code: 'ETIMEOUT',
          }),
        ),
      timeoutMs,
    );
    timer.unref();
  });
  try {
    return await Promise.race([resolve(host), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Where a webhook URL leads: a checked address to connect to, or why it may not be used. */
export type ResolvedTarget =
  | { readonly ok: true; readonly url: URL; readonly address: string; readonly family: 4 | 6 }
  | {
      readonly ok: false;
      readonly reason: string;
      /** The name did not resolve (may work later); otherwise the target is refused for good. */
      readonly dns?: string;
    };

/**
 * Parses a webhook URL, resolves its host and checks EVERY address against the policy (a name with one public
 * and one private address is refused: the resolver could hand out either). The lookup is given up after
 * `timeoutMs` (`ETIMEOUT`, naming the host). Plain data, never throws.
 */
export async function resolveTarget(
  raw: string,
  policy: AddressPolicy,
  resolve: Resolve = defaultResolve,
  timeoutMs: number = DEFAULT_RESOLVE_TIMEOUT_MS,
): Promise<ResolvedTarget> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'not a URL' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return { ok: false, reason: `scheme ${url.protocol} (use http or https)` };
  if (url.username !== '' || url.password !== '')
    return { ok: false, reason: 'credentials in the URL (put a token in the path or query instead)' };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: ReadonlyArray<{ address: string; family: number }>;
  if (isIP(host) !== 0) addresses = [{ address: host, family: isIP(host) }];
  else {
    try {
      addresses = await resolveWithin(resolve, host, timeoutMs);
    } catch (error) {
      const code = (error as { code?: string }).code ?? 'ENOTFOUND';
      if (code === 'ETIMEOUT')
        return { ok: false, reason: `${host} does not resolve within ${timeoutMs} ms (ETIMEOUT)`, dns: code };
      return { ok: false, reason: `${host} does not resolve (${code})`, dns: code };
    }
  }
  if (addresses.length === 0) return { ok: false, reason: `${host} does not resolve` };
  for (const a of addresses) {
    const verdict = policy.check(a.address);
    if (!verdict.ok) {
      const via = a.address === host ? '' : ` (${host} resolves to ${a.address})`;
      return {
        ok: false,
        reason: `${a.address} is a ${verdict.reason} address (${verdict.range})${via}; alert targets must be public unless ALERT_TARGET_ALLOWED_NETWORKS allows it`,
      };
    }
  }
  const first = addresses[0]!;
  return { ok: true, url, address: first.address, family: first.family === 6 ? 6 : 4 };
}

/** A webhook refused by the address policy (never retried). */
export class TargetRefusedError extends Error {
  override readonly name = 'TargetRefusedError';
}

/** A webhook's answer: status and headers; the body is read (at most `maxResponseBytes`) and dropped. */
export interface WebhookResponse {
  readonly status: number;
  readonly headers: Record<string, string>;
}

export interface PostOptions {
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  readonly signal?: AbortSignal;
}

/**
 * POSTs `body` to a resolved target, connecting to the checked address only (the name is not resolved again:
 * a DNS answer that changes between the check and the connection cannot redirect the request), with the
 * original host name in `Host` and for TLS (SNI and certificate). One deadline covers connect, send and answer;
 * redirects are not followed; the answer's body is capped.
 */
export function postWebhook(
  target: Extract<ResolvedTarget, { ok: true }>,
  body: string,
  headers: Record<string, string>,
  options: PostOptions,
): Promise<WebhookResponse> {
  const { url, address, family } = target;
  const pinned: LookupFunction = (_host, opts, callback) => {
    if ((opts as { all?: boolean }).all) callback(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<WebhookResponse>((resolve, reject) => {
    const signal = AbortSignal.any([
      AbortSignal.timeout(options.timeoutMs),
      ...(options.signal ? [options.signal] : []),
    ]);
    const req = client.request(
      url,
      {
        method: 'POST',
        lookup: pinned,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        signal,
        agent: false,
      },
      (res) => {
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxResponseBytes) res.destroy(); // enough: the status is what matters
        });
        const done = () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: Object.fromEntries(
              Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]),
            ),
          });
        res.on('end', done);
        res.on('close', done);
        res.on('error', done);
      },
    );
    req.on('error', (error) => reject(signal.aborted ? (signal.reason ?? error) : error));
    req.end(body);
  });
}
