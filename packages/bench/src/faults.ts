/**
 * The failures a tool call meets in production, as the error objects a client really receives (the same object
 * shapes the MCP SDK, undici/fetch and HTTP clients produce), and the ground truth about each: whether retrying
 * the same request can ever succeed (`transient`). Policies never see the ground truth; only the metrics and the
 * oracle do.
 */

export type FaultKind =
  // permanent: retrying the same arguments or credentials never helps
  | 'invalid_argument_400'
  | 'invalid_params_32602'
  | 'unauthorized_401'
  | 'forbidden_403'
  | 'not_found_404'
  // transient
  | 'unavailable_503_html'
  | 'bad_gateway_502'
  | 'internal_500'
  | 'connection_refused'
  | 'connection_reset'
  | 'timeout'
  | 'rate_limited_429'
  /** A server beyond its capacity sheds the request (the overload scenario; see serverLoad.ts). */
  | 'overloaded_503';

/** The client's request timeout (the MCP SDK's `timeout` request option as an agent would set it). */
export const TRANSPORT_TIMEOUT_MS = 10_000;

export interface FaultInfo {
  /** Ground truth: can a later attempt of the same call succeed? */
  readonly transient: boolean;
  /** Short label for tables. */
  readonly label: string;
  /** Grouping for the failure-composition table. */
  readonly group: 'validation' | 'authorization' | 'not found' | '5xx' | 'network' | 'timeout' | 'rate limit';
  /** How long the failing attempt takes, from the attempt's drawn latency of a normal answer. */
  readonly latencyMs: (normalLatencyMs: number) => number;
}

export const FAULTS: Readonly<Record<FaultKind, FaultInfo>> = {
  invalid_argument_400: {
    transient: false,
    label: 'HTTP 400 invalid argument',
    group: 'validation',
    latencyMs: (l) => l * 0.5,
  },
  invalid_params_32602: {
    transient: false,
    label: 'JSON-RPC -32602 invalid params',
    group: 'validation',
    latencyMs: (l) => l * 0.5,
  },
  unauthorized_401: { transient: false, label: 'HTTP 401', group: 'authorization', latencyMs: () => 25 },
  forbidden_403: { transient: false, label: 'HTTP 403', group: 'authorization', latencyMs: () => 25 },
  not_found_404: { transient: false, label: 'HTTP 404', group: 'not found', latencyMs: (l) => l * 0.7 },
  unavailable_503_html: {
    transient: true,
    label: 'HTTP 503 (proxy HTML page)',
    group: '5xx',
    latencyMs: () => 15,
  },
  bad_gateway_502: { transient: true, label: 'HTTP 502', group: '5xx', latencyMs: () => 30 },
  internal_500: { transient: true, label: 'HTTP 500', group: '5xx', latencyMs: (l) => l },
  connection_refused: {
    transient: true,
    label: 'fetch failed (ECONNREFUSED)',
    group: 'network',
    latencyMs: () => 2,
  },
  connection_reset: {
    transient: true,
    label: 'fetch failed (ECONNRESET)',
    group: 'network',
    latencyMs: (l) => l * 0.5,
  },
  timeout: {
    transient: true,
    label: `MCP -32001 request timeout (${TRANSPORT_TIMEOUT_MS / 1000} s)`,
    group: 'timeout',
    latencyMs: () => TRANSPORT_TIMEOUT_MS,
  },
  rate_limited_429: {
    transient: true,
    label: 'HTTP 429 + Retry-After',
    group: 'rate limit',
    latencyMs: () => 10,
  },
  overloaded_503: {
    transient: true,
    label: 'HTTP 503 overloaded (no Retry-After)',
    group: '5xx',
    // The scenario's capacity sets the real figure (Capacity.rejectLatencyMs); this is the overload scenario's.
    latencyMs: () => 250,
  },
};

const CITIES = ['Atlantis', 'Springfeld', 'Lllondon', 'El Dorado', 'Gotham', 'Parris'];

const NGINX_503 =
  '<html>\r\n<head><title>503 Service Temporarily Unavailable</title></head>\r\n<body>\r\n<center><h1>503 Service Temporarily Unavailable</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

/** The context an error is built in: which call, and for a rate limit, the announced wait. */
export interface FaultContext {
  readonly callId: number;
  /** Seconds until the rate-limit window ends (the `Retry-After` header value). */
  readonly retryAfterS?: number;
}

const httpError = (message: string, status: number, extra: Record<string, unknown> = {}) =>
  Object.assign(new Error(message), { status, ...extra });

/** An `McpError` as the TypeScript SDK builds it: `MCP error <code>: <message>`, numeric `code`, optional `data`. */
const mcpError = (code: number, message: string, data?: unknown) => {
  const error = new Error(`MCP error ${code}: ${message}`);
  error.name = 'McpError';
  return Object.assign(error, { code }, data === undefined ? {} : { data });
};

/** undici's `TypeError('fetch failed')` with the system error as `cause`. */
const fetchFailed = (code: string, syscall: string, message: string) =>
  new TypeError('fetch failed', {
    cause: Object.assign(new Error(message), { code, syscall, errno: code === 'ECONNREFUSED' ? -111 : -104 }),
  });

/** A fresh error object for one failed attempt, as the client sees it. */
export function makeError(kind: FaultKind, context: FaultContext): Error {
  const city = CITIES[context.callId % CITIES.length]!;
  switch (kind) {
    case 'invalid_argument_400':
      return httpError(`Invalid city: ${city}`, 400);
    case 'invalid_params_32602':
      return mcpError(
        -32602,
        `Invalid arguments for tool get_forecast: days: Number must be less than or equal to 16`,
      );
    case 'unauthorized_401':
      return httpError('Unauthorized: the access token expired or is invalid', 401, {
        headers: { 'www-authenticate': 'Bearer error="invalid_token"' },
      });
    case 'forbidden_403':
      return httpError('Forbidden: the token lacks the scope weather:read', 403);
    case 'not_found_404':
      return httpError(`No forecast for station ${city.toUpperCase()}-7`, 404);
    case 'unavailable_503_html':
      // The SDK's StreamableHTTPError: `code` is the HTTP status, the body is in the message.
      return Object.assign(new Error(`Streamable HTTP error: Error POSTing to endpoint: ${NGINX_503}`), {
        name: 'StreamableHTTPError',
        code: 503,
      });
    case 'bad_gateway_502':
      return httpError('Bad Gateway', 502);
    case 'internal_500':
      return httpError('Internal Server Error', 500);
    case 'connection_refused':
      return fetchFailed('ECONNREFUSED', 'connect', 'connect ECONNREFUSED 10.0.3.7:443');
    case 'connection_reset':
      return fetchFailed('ECONNRESET', 'read', 'read ECONNRESET');
    case 'timeout':
      return mcpError(-32001, 'Request timed out', { timeout: TRANSPORT_TIMEOUT_MS });
    case 'rate_limited_429':
      return httpError('Too Many Requests', 429, {
        headers: { 'retry-after': String(context.retryAfterS ?? 1) },
      });
    case 'overloaded_503':
      return httpError('Service Unavailable: server overloaded, try again later', 503);
  }
}

/** The HTTP status an HTTP client library would expose for this error (`status`, or a StreamableHTTPError `code`). */
export function httpStatusOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const e = error as { status?: unknown; code?: unknown };
  if (typeof e.status === 'number') return e.status;
  if (typeof e.code === 'number' && e.code >= 100 && e.code <= 599) return e.code;
  return undefined;
}

/** `TypeError('fetch failed')`-style network errors. */
export function isNetworkError(error: unknown): boolean {
  return error instanceof TypeError && /^(fetch failed|failed to fetch|network error)$/i.test(error.message);
}

/** An abort: a DOMException/Error named AbortError or TimeoutError. */
export function isAbortError(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    ((error as { name?: unknown }).name === 'AbortError' ||
      (error as { name?: unknown }).name === 'TimeoutError')
  );
}
