import { BREAKER_STATES, type BreakerState } from '../../decide/BreakerState.js';
import {
  type FleetVerdict,
  type HealthUpdate,
  MAX_KEY_LENGTH,
  MAX_SHARED_OUTAGES,
  type ReadResult,
  type StoreMessage,
} from './HealthStore.js';

/**
 * The versioned encoding of what replicas share: JSON objects with `v: 1`. Decoding validates every field
 * (types, finite numbers, bounded strings and lists) and returns plain data: a value, or the problem that makes
 * it unreadable (another version, garbage), which the caller ignores with one warning.
 */
export const HEALTH_ENCODING_VERSION = 1;

export type Decoded<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly problem: string };

/** Longest encoded value accepted (bytes of text): anything longer is unreadable before it is parsed. */
export const MAX_ENCODED_LENGTH = 4096;

export const encodeVerdict = (v: FleetVerdict): string =>
  JSON.stringify({ v: HEALTH_ENCODING_VERSION, ...v });
export const encodeNumber = (name: string, value: number): string =>
  JSON.stringify({ v: HEALTH_ENCODING_VERSION, [name]: value });
/** One past outage, an element of the endpoint's bounded list. */
export const encodeOutage = (lengthMs: number): string => encodeNumber('ms', lengthMs);

export function encodeMessage(endpoint: string, from: string, update: HealthUpdate): string {
  return JSON.stringify({ v: HEALTH_ENCODING_VERSION, endpoint, from, update });
}

/** Parses `text` as a version-1 object. */
function parse(what: string, text: unknown): Decoded<Record<string, unknown>> {
  if (typeof text !== 'string') return fail(`${what}: not a string`);
  if (text.length > MAX_ENCODED_LENGTH)
    return fail(`${what}: ${text.length} characters (at most ${MAX_ENCODED_LENGTH})`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return fail(`${what}: not JSON (${JSON.stringify(text.slice(0, 40))})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return fail(`${what}: not an object`);
  const v = (value as { v?: unknown }).v;
  if (v !== HEALTH_ENCODING_VERSION)
    return fail(`${what}: encoding version ${JSON.stringify(v)} (this reads ${HEALTH_ENCODING_VERSION})`);
  return { ok: true, value: value as Record<string, unknown> };
}

const fail = (problem: string): { ok: false; problem: string } => ({ ok: false, problem });
const isTime = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x) && x >= 0;
const isName = (x: unknown): x is string =>
  typeof x === 'string' && x.length > 0 && x.length <= MAX_KEY_LENGTH;

export function decodeVerdict(text: unknown): Decoded<FleetVerdict> {
  const p = parse('verdict', text);
  if (!p.ok) return p;
  return checkVerdict(p.value);
}

function checkVerdict(o: Record<string, unknown>): Decoded<FleetVerdict> {
  const { state, since, until, by } = o;
  if (!BREAKER_STATES.includes(state as BreakerState)) return fail(`verdict: state ${JSON.stringify(state)}`);
  if (!isTime(since)) return fail('verdict: since is not a time');
  if (until !== undefined && !isTime(until)) return fail('verdict: until is not a time');
  if (!isName(by)) return fail('verdict: by is not a replica id');
  return {
    ok: true,
    value: { state: state as BreakerState, since, ...(until === undefined ? {} : { until }), by },
  };
}

/** Decodes `{ v: 1, [name]: time }`. */
export function decodeTime(name: string, text: unknown): Decoded<number> {
  const p = parse(name, text);
  if (!p.ok) return p;
  const t = p.value[name];
  return isTime(t) ? { ok: true, value: t } : fail(`${name}: not a time`);
}

/** Decodes the list of past outages (the newest `MAX_SHARED_OUTAGES` are read, the rest ignored). */
export function decodeOutages(texts: readonly unknown[]): Decoded<readonly number[]> {
  const lengths: number[] = [];
  for (const text of texts.slice(-MAX_SHARED_OUTAGES)) {
    const d = decodeTime('ms', text);
    if (!d.ok) return fail(`outages: ${d.problem}`);
    lengths.push(d.value);
  }
  return { ok: true, value: lengths };
}

function checkUpdate(u: unknown): Decoded<HealthUpdate> {
  if (typeof u !== 'object' || u === null) return fail('update: not an object');
  const o = u as Record<string, unknown>;
  switch (o.kind) {
    case 'verdict': {
      if (typeof o.verdict !== 'object' || o.verdict === null)
        return fail('update: verdict is not an object');
      const v = checkVerdict(o.verdict as Record<string, unknown>);
      return v.ok ? { ok: true, value: { kind: 'verdict', verdict: v.value } } : v;
    }
    case 'outage_started':
      return isTime(o.start)
        ? { ok: true, value: { kind: 'outage_started', start: o.start } }
        : fail('update: start');
    case 'outage_ended':
      return isTime(o.start) && isTime(o.lengthMs)
        ? { ok: true, value: { kind: 'outage_ended', start: o.start, lengthMs: o.lengthMs } }
        : fail('update: outage_ended needs start and lengthMs');
    case 'hold':
      return isTime(o.until) ? { ok: true, value: { kind: 'hold', until: o.until } } : fail('update: until');
    case 'failing':
      return { ok: true, value: { kind: 'failing' } };
    default:
      return fail(`update: kind ${JSON.stringify(o.kind)}`);
  }
}

/** Decodes a pub/sub message into a `StoreMessage` (`unreadable` with the problem when it cannot be read). */
export function decodeMessage(text: unknown): StoreMessage {
  const p = parse('message', text);
  if (!p.ok) return { kind: 'unreadable', problem: p.problem };
  const { endpoint, from, update } = p.value;
  if (!isName(endpoint)) return { kind: 'unreadable', problem: 'message: endpoint' };
  if (!isName(from)) return { kind: 'unreadable', problem: 'message: from' };
  const u = checkUpdate(update);
  if (!u.ok) return { kind: 'unreadable', problem: `message: ${u.problem}` };
  return { kind: 'update', endpoint, from, update: u.value };
}

/** The stored fields of one endpoint (a Redis hash), by name. */
export interface StoredFields {
  readonly verdict?: string;
  readonly outage?: string;
  readonly hold?: string;
  /** The past outages, oldest first (a list of its own). */
  readonly outages: readonly string[];
}

/**
 * Decodes an endpoint's stored fields and its probe lease. A field that cannot be read makes the whole read
 * `unreadable` (the replica then keeps its local view), rather than acting on half of another version's data.
 */
export function decodeHealth(
  fields: StoredFields,
  probe: { readonly owner: string; readonly until: number } | undefined,
): ReadResult {
  const empty =
    fields.verdict === undefined &&
    fields.outage === undefined &&
    fields.outages.length === 0 &&
    fields.hold === undefined;
  if (empty && !probe) return { kind: 'empty' };
  const verdict = fields.verdict === undefined ? undefined : decodeVerdict(fields.verdict);
  const outage = fields.outage === undefined ? undefined : decodeTime('start', fields.outage);
  const outages = decodeOutages(fields.outages);
  const hold = fields.hold === undefined ? undefined : decodeTime('until', fields.hold);
  for (const d of [verdict, outage, outages, hold])
    if (d && !d.ok) return { kind: 'unreadable', problem: d.problem };
  const value = <T>(d: Decoded<T> | undefined): T | undefined => (d?.ok ? d.value : undefined);
  const v = value(verdict);
  const start = value(outage);
  const until = value(hold);
  return {
    kind: 'health',
    health: {
      ...(v ? { verdict: v } : {}),
      ...(start === undefined ? {} : { outageStart: start }),
      outages: value(outages) ?? [],
      ...(until === undefined ? {} : { holdUntil: until }),
      ...(probe ? { probe } : {}),
    },
  };
}
