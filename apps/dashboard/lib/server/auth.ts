import { createHash, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config';

const digest = (s: string) => createHash('sha256').update(s).digest();
/** Constant-time comparison (of digests, so lengths never leak either). */
export const safeEqual = (a: string | undefined, b: string | undefined): boolean =>
  a !== undefined && b !== undefined && timingSafeEqual(digest(a), digest(b));

export const SESSION_COOKIE = 'mcpr_session';

export interface Auth {
  readonly enabled: boolean;
  /** True when the request carries valid credentials (bearer token, basic auth or the session cookie). */
  check(headers: { authorization?: string | undefined; cookie?: string | undefined }): boolean;
  /** True when `token` (from `?token=`) is the dashboard token. */
  checkToken(token: string | undefined): boolean;
  /** The `Set-Cookie` value of a browser session (HttpOnly, SameSite=Strict). */
  sessionCookie(secure: boolean): string;
}

/** DASHBOARD_TOKEN (bearer, `?token=` once then a cookie, or as the basic-auth password) and/or DASHBOARD_USER/PASSWORD. */
export function createAuth(
  config: Pick<Config, 'dashboardToken' | 'dashboardUser' | 'dashboardPassword'>,
): Auth {
  const token = config.dashboardToken;
  const user = config.dashboardUser;
  const password = config.dashboardPassword;
  const enabled = token !== undefined || user !== undefined;
  // The cookie holds a digest of the secret, never the secret itself.
  const session = createHash('sha256')
    .update(`mcp-resilience-session\u0000${token ?? ''}\u0000${user ?? ''}\u0000${password ?? ''}`)
    .digest('hex');

  return {
    enabled,
    checkToken: (t) => token !== undefined && safeEqual(t, token),
    check({ authorization, cookie }) {
      if (!enabled) return true;
      const auth = authorization ?? '';
      const bearer = /^Bearer\s+(.+)$/i.exec(auth)?.[1]?.trim();
      if (bearer !== undefined && token !== undefined && safeEqual(bearer, token)) return true;
      const basic = /^Basic\s+(.+)$/i.exec(auth)?.[1];
      if (basic !== undefined) {
        const decoded = Buffer.from(basic, 'base64').toString('utf8');
        const i = decoded.indexOf(':');
        const u = i >= 0 ? decoded.slice(0, i) : decoded;
        const p = i >= 0 ? decoded.slice(i + 1) : '';
        if (user !== undefined && safeEqual(u, user) && safeEqual(p, password)) return true;
        if (token !== undefined && safeEqual(p, token)) return true;
      }
      for (const part of (cookie ?? '').split(';')) {
        const [k, v] = part.trim().split('=');
        if (k === SESSION_COOKIE && safeEqual(v, session)) return true;
      }
      return false;
    },
    sessionCookie: (secure) =>
      `${SESSION_COOKIE}=${session}; Path=/; HttpOnly; SameSite=Strict; Max-Age=2592000${secure ? '; Secure' : ''}`,
  };
}
