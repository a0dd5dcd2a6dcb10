import { describeUpstream, type UpstreamSpec } from '../upstream/UpstreamSpec.js';

/** How deep the cause chain is searched for a system error code (`ECONNREFUSED`, `ENOTFOUND`, `ENOENT`...). */
const MAX_CAUSE_DEPTH = 8;

/**
 * The message a host gets when the upstream could not be started or reached: which upstream (its command line,
 * or its URL without credentials or query), why, and the system error code under a generic message (undici's
 * `fetch failed` hides `ECONNREFUSED`, or `bad port` for a port fetch refuses, in its cause), so that a typo in a
 * URL or a command reads as one.
 */
export function upstreamRefusal(spec: UpstreamSpec, error: unknown): string {
  const what =
    spec.kind === 'stdio'
      ? `start the upstream server '${describeUpstream(spec)}'`
      : `connect to the upstream server at ${describeUpstream(spec)}`;
  const reason = error instanceof Error ? error.message : String(error);
  const code = rootCause(error);
  const why = code === undefined || reason.includes(code) ? reason : `${reason} (${code})`;
  return `mcp-resilience: could not ${what}: ${why}`;
}

/** The first system error code in the cause chain, else the innermost cause's message (undefined: no cause). */
function rootCause(error: unknown): string | undefined {
  let current: unknown = error;
  let innermost: string | undefined;
  for (let depth = 0; depth < MAX_CAUSE_DEPTH && typeof current === 'object' && current !== null; depth++) {
    const { code, cause, message } = current as { code?: unknown; cause?: unknown; message?: unknown };
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
    if (depth > 0 && typeof message === 'string' && message !== '') innermost = message;
    current = cause;
  }
  return innermost;
}
