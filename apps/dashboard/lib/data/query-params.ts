import type { BreakerPageQuery, CallsQuery, CompareBy, Filters, TimeQuery } from './types';

export class ParamError extends Error {
  constructor(
    readonly param: string,
    message: string,
  ) {
    super(message);
  }
}

export const RANGES = {
  '15m': 15 * 60_000,
  '1h': 3_600_000,
  '6h': 6 * 3_600_000,
  '24h': 24 * 3_600_000,
  '7d': 7 * 86_400_000,
} as const;
export type RangeKey = keyof typeof RANGES;
export const DEFAULT_RANGE: RangeKey = '1h';

const MAX_NAME = 256;

function epochMs(params: URLSearchParams, name: string): number | undefined {
  const raw = params.get(name);
  if (raw === null) return undefined;
  if (!/^\d{1,16}$/.test(raw.trim())) {
    throw new ParamError(
      name,
      `invalid parameter '${name}': expected epoch milliseconds (a non-negative integer), got '${raw.slice(0, 40)}'`,
    );
  }
  return Number(raw);
}

function name(params: URLSearchParams, param: string): string | undefined {
  const all = params.getAll(param);
  if (all.length === 0) return undefined;
  if (all.length > 1) throw new ParamError(param, `invalid parameter '${param}': given more than once`);
  const v = all[0]!;
  if (v === '' || v.length > MAX_NAME) {
    throw new ParamError(
      param,
      `invalid parameter '${param}': expected a non-empty name of at most ${MAX_NAME} characters`,
    );
  }
  return v;
}

type QueryParam = 'from' | 'to' | 'server' | 'service' | 'tool' | 'method';

const list = (names: readonly string[]) =>
  names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;

/** Parses `from`, `to` (epoch ms; default: the last hour) and the allowed filters; anything else is a 400. */
function parseQuery(params: URLSearchParams, now: number, allowed: readonly QueryParam[]): TimeQuery {
  for (const key of params.keys()) {
    if (!(allowed as readonly string[]).includes(key)) {
      throw new ParamError(key, `unknown parameter '${key}': expected ${list(allowed)}`);
    }
  }
  for (const p of ['from', 'to']) {
    if (params.getAll(p).length > 1)
      throw new ParamError(p, `invalid parameter '${p}': given more than once`);
  }
  const to = epochMs(params, 'to') ?? now;
  const from = epochMs(params, 'from') ?? to - RANGES['1h'];
  if (from >= to)
    throw new ParamError('from', `invalid parameter 'from': must be before 'to' (${from} >= ${to})`);
  const filters: Filters = {
    server: allowed.includes('server') ? name(params, 'server') : undefined,
    service: allowed.includes('service') ? name(params, 'service') : undefined,
    tool: allowed.includes('tool') ? name(params, 'tool') : undefined,
    method: allowed.includes('method') ? name(params, 'method') : undefined,
  };
  return { from, to, filters };
}

/**
 * `GET /api/v1/summary?from=<ms>&to=<ms>&server=<name>` (also `service`, `tool`, `method`); default: the last
 * hour.
 */
export function parseSummaryParams(params: URLSearchParams, now: number): TimeQuery {
  return parseQuery(params, now, ['from', 'to', 'server', 'service', 'tool', 'method']);
}

/** `GET /api/v1/instances?from=<ms>&to=<ms>&service=<name>`; default: the last hour. */
export function parseInstancesParams(params: URLSearchParams, now: number): TimeQuery {
  return parseQuery(params, now, ['from', 'to', 'service']);
}

/** `GET /api/v1/transitions?from=<ms>&to=<ms>&service=&server=&tool=`; default: the last hour. */
export function parseTransitionsParams(params: URLSearchParams, now: number): TimeQuery {
  return parseQuery(params, now, ['from', 'to', 'service', 'server', 'tool']);
}

export type PageSearchParams = Record<string, string | string[] | undefined>;

const first = (v: string | string[] | undefined): string | undefined => {
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s === '' ? undefined : s.slice(0, MAX_NAME);
};

export function isRangeKey(v: unknown): v is RangeKey {
  return typeof v === 'string' && Object.hasOwn(RANGES, v);
}

/** The shortest custom range a page accepts (a brush over a few pixels). */
export const MIN_CUSTOM_RANGE_MS = 10_000;
export const COMPARE_BY: readonly CompareBy[] = ['service', 'variant', 'server', 'instance'];

const pageEpoch = (v: string | string[] | undefined): number | undefined => {
  const s = first(v);
  return s !== undefined && /^\d{1,16}$/.test(s) ? Number(s) : undefined;
};

/**
 * A page's `?range=&from=&to=&service=&server=&tool=&method=&variant=&compare=`: lenient (unknown values fall back to
 * defaults). `from` and `to` (epoch ms, both, from a brush or the custom range form) win over `range`.
 */
export function parsePageQuery(
  sp: PageSearchParams,
  now: number,
): { range: RangeKey; custom: boolean; query: TimeQuery; compare: CompareBy | undefined } {
  const r = first(sp.range);
  const preset: RangeKey = isRangeKey(r) ? r : DEFAULT_RANGE;
  const from = pageEpoch(sp.from);
  const to = pageEpoch(sp.to);
  const custom = from !== undefined && to !== undefined && to - from >= MIN_CUSTOM_RANGE_MS;
  const c = first(sp.compare);
  return {
    /** The preset (the live stream's window); a custom range is not followed live. */
    range: preset,
    custom,
    query: {
      from: custom ? from : now - RANGES[preset],
      to: custom ? Math.min(to, now) : now,
      filters: {
        service: first(sp.service),
        server: first(sp.server),
        tool: first(sp.tool),
        method: first(sp.method),
        variant: first(sp.variant),
      },
    },
    compare: COMPARE_BY.find((b) => b === c),
  };
}

/** What `?without=` can name: the calls that carry no tool, or no method (a latency row of neither). */
const WITHOUT = ['tool', 'method'] as const;

/**
 * The Calls page's query: the page query plus what a chart point links to (`outcome`, `class`, `type`), and
 * `without=tool,method` for calls that name no tool and no method (a filter of '': none given).
 */
export function parseCallsQuery(sp: PageSearchParams, now: number): CallsQuery {
  const { query } = parsePageQuery(sp, now);
  const only = first(sp.only);
  const without = new Set(first(sp.without)?.split(','));
  const filters = { ...query.filters };
  for (const d of WITHOUT) if (without.has(d) && filters[d] === undefined) filters[d] = '';
  return {
    ...query,
    filters,
    only: only === 'failed' || only === 'retried' ? only : undefined,
    outcome: first(sp.outcome),
    errorClass: first(sp.class),
    errorType: first(sp.type),
  };
}

/** Breakers per page of the Breakers page (the page stays well under 1 MB whatever the store holds). */
export const BREAKERS_PER_PAGE = 48;
/** The last page a URL can ask for (`?page=`): beyond, the last one. */
const MAX_PAGE = 100_000;
const BREAKER_STATES = ['open', 'half_open', 'closed', 'stale'] as const;

/** The Breakers page's `?page=&match=&state=` (lenient, as every page query). */
export function parseBreakerPageQuery(sp: PageSearchParams): BreakerPageQuery & { page: number } {
  const raw = first(sp.page);
  const page = raw !== undefined && /^\d{1,6}$/.test(raw) ? Math.min(MAX_PAGE, Math.max(1, Number(raw))) : 1;
  const state = first(sp.state);
  const match = first(sp.match)?.trim();
  return {
    page,
    offset: (page - 1) * BREAKERS_PER_PAGE,
    limit: BREAKERS_PER_PAGE,
    match: match === '' ? undefined : match,
    state: BREAKER_STATES.find((s) => s === state),
  };
}
