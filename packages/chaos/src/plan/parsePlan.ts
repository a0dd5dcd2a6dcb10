import { parse as parseYaml } from 'yaml';
import type { FaultKind, FaultPlan } from './FaultPlan.js';
import { PlanError } from './PlanError.js';

type Check = (value: unknown, path: string) => void;

const show = (value: unknown): string => {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

function fail(path: string, expected: string, value: unknown): never {
  throw new PlanError(path, `${expected}, got ${show(value)}`);
}

const range = (min: number, max: number) =>
  max === Number.POSITIVE_INFINITY ? `>= ${min}` : `in [${min}, ${max}]`;

const number =
  (min: number, max = Number.POSITIVE_INFINITY): Check =>
  (value, path) => {
    if (typeof value !== 'number' || !(value >= min && value <= max)) {
      fail(path, `must be a number ${range(min, max)}`, value);
    }
  };

const integer =
  (min: number, max = Number.POSITIVE_INFINITY): Check =>
  (value, path) => {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      fail(path, `must be an integer ${range(min, max)}`, value);
    }
  };

const oneOf =
  (...allowed: readonly (string | number)[]): Check =>
  (value, path) => {
    if (!allowed.includes(value as string | number)) {
      fail(path, `must be one of ${allowed.map(show).join(', ')}`, value);
    }
  };

const string: Check = (value, path) => {
  if (typeof value !== 'string' || value === '') fail(path, 'must be a non-empty string', value);
};

const list: Check = (value, path) => {
  if (!Array.isArray(value)) fail(path, 'must be a list', value);
};

const strings: Check = (value, path) => {
  const items = Array.isArray(value) ? value : [value];
  if (items.length === 0 || !items.every((item) => typeof item === 'string' && item !== '')) {
    fail(path, 'must be a string or a non-empty list of strings', value);
  }
};

const conditions: Record<string, Check> = {
  name: string,
  tool: strings,
  method: strings,
  probability: number(0, 1),
  per: oneOf('request', 'call'),
  from: number(0),
  to: number(0),
  every: integer(1),
  times: integer(1),
};

const mode = oneOf('unavailable', 'reset');

/** The fields each kind accepts besides the conditions; `required` lists the ones it cannot do without. */
const effects: Record<FaultKind, { fields: Record<string, Check>; required?: string[] }> = {
  invalid_params: { fields: { mode: oneOf('result', 'error'), message: string } },
  tool_error: { fields: { text: string } },
  unauthorized: { fields: {} },
  forbidden: { fields: {} },
  rate_limit: { fields: { retryAfter: integer(0) } },
  http_error: { fields: { status: oneOf(500, 502, 503, 504), retryAfter: integer(0) } },
  hang: { fields: { delay: number(0) } },
  reset: { fields: {} },
  reset_after: { fields: {} },
  stream_broken: { fields: {} },
  session_expired: { fields: {} },
  crash: { fields: { exitCode: integer(0, 255) } },
  outage: { fields: { mode } },
  flapping: { fields: { period: number(1), duty: number(0, 1), mode }, required: ['period'] },
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const checkFields = (value: Record<string, unknown>, fields: Record<string, Check>, path: string) => {
  for (const [key, field] of Object.entries(value)) {
    const check = fields[key];
    if (!check) {
      throw new PlanError(`${path}.${key}`, `unknown field; allowed: ${Object.keys(fields).join(', ')}`);
    }
    check(field, `${path}.${key}`);
  }
};

const checkFault = (fault: unknown, path: string) => {
  if (!isRecord(fault)) fail(path, 'must be an object with a "kind"', fault);
  const { kind, ...rest } = fault;
  if (typeof kind !== 'string' || !Object.hasOwn(effects, kind)) {
    fail(`${path}.kind`, `must be one of ${Object.keys(effects).join(', ')}`, kind);
  }
  const effect = effects[kind as FaultKind];
  checkFields(rest, { ...conditions, ...effect.fields }, path);
  for (const field of effect.required ?? []) {
    if (rest[field] === undefined) throw new PlanError(`${path}.${field}`, `is required for kind "${kind}"`);
  }
  const { from, to } = rest as { from?: number; to?: number };
  if (from !== undefined && to !== undefined && to <= from) {
    fail(`${path}.to`, `must be greater than from (${from})`, to);
  }
};

/**
 * Validates a fault plan given as YAML or JSON text, or as an object. Throws a {@link PlanError} naming the
 * path of the first bad field and what is allowed there.
 */
export function parsePlan(input: unknown): FaultPlan {
  let plan: unknown = input;
  if (typeof input === 'string') {
    try {
      plan = parseYaml(input);
    } catch (error) {
      throw new PlanError('plan', `is not valid YAML or JSON: ${(error as Error).message.split('\n')[0]}`);
    }
  }
  if (!isRecord(plan)) fail('plan', 'must be an object with a "faults" list', plan);
  checkFields(plan, { faults: list, unknownSession: oneOf(404, 400) }, 'plan');
  const faults = (plan.faults ?? []) as unknown[];
  for (const [index, fault] of faults.entries()) checkFault(fault, `plan.faults[${index}]`);
  return structuredClone({ ...plan, faults }) as FaultPlan;
}
