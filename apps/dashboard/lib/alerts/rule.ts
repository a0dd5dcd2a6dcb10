/** The built-in alert: retry efficiency below a threshold over a short and a long window, with a volume guard. */
export interface RetryEfficiencyRule {
  readonly id: string;
  readonly name: string;
  readonly kind: 'retry_efficiency';
  readonly enabled: boolean;
  /** Fires below this efficiency (successful retries / retries). */
  readonly threshold: number;
  readonly shortWindowMs: number;
  readonly longWindowMs: number;
  /** Retries needed in the long window before the rule may fire. */
  readonly minRetries: number;
  /** How long the condition must hold before pending becomes firing. */
  readonly forMs: number;
  /** How long a firing alert stays firing after the condition stops holding. */
  readonly keepFiringForMs: number;
  readonly severity: 'warning' | 'critical';
}

export type AlertRule = RetryEfficiencyRule;

export const BUILT_IN_RULE: RetryEfficiencyRule = Object.freeze({
  id: 'retry-efficiency',
  name: 'RetryEfficiencyBelowTarget',
  kind: 'retry_efficiency',
  enabled: true,
  threshold: 0.8,
  shortWindowMs: 5 * 60_000,
  longWindowMs: 60 * 60_000,
  minRetries: 20,
  forMs: 5 * 60_000,
  keepFiringForMs: 0,
  severity: 'warning',
});

export class RuleValidationError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

const DAY = 86_400_000;

/** The fields an edit may set. */
const EDITABLE = new Set([
  'threshold',
  'shortWindowMs',
  'longWindowMs',
  'minRetries',
  'forMs',
  'keepFiringForMs',
  'enabled',
  'severity',
  'name',
]);

/**
 * The body of `PUT /api/alerts/rules/:id`, checked strictly: a JSON object (not an array) of editable fields
 * whose values are scalars; `id` and `kind` may be sent back unchanged (a GET's answer is a valid PUT). Anything
 * else is a `RuleValidationError` naming the field.
 */
export function ruleEdit(base: AlertRule, body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new RuleValidationError('body', 'body must be a JSON object of rule fields');
  const edit: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    const field = key.length > 64 ? `${key.slice(0, 64)}…` : key;
    if (key === 'id' || key === 'kind') {
      if (value !== base[key]) throw new RuleValidationError(field, `${field} cannot be changed`);
      continue;
    }
    if (!EDITABLE.has(key)) {
      throw new RuleValidationError(
        field,
        `unknown field '${field}' (editable: ${[...EDITABLE].join(', ')})`,
      );
    }
    if (typeof value === 'object' && value !== null)
      throw new RuleValidationError(
        field,
        `${field} must be a ${Array.isArray(value) ? 'single value, not an array' : 'number, string or boolean'}`,
      );
    edit[key] = value;
  }
  return edit;
}

const NUMBER_TEXT = /^-?\d+(\.\d+)?([eE][+-]?\d+)?$/;

/** Merges an edit into a rule, checking every field; errors name the field. */
export function validateRule(base: AlertRule, edit: Record<string, unknown>): AlertRule {
  const out: Record<string, unknown> = { ...base };
  const numberField = (key: keyof RetryEfficiencyRule, min: number, max: number, integer = false) => {
    if (!(key in edit) || edit[key] === undefined) return;
    const raw = edit[key];
    // a form or a JSON string may carry the number as decimal text (not hex, not blank-padded)
    const v = typeof raw === 'string' && NUMBER_TEXT.test(raw) ? Number(raw) : raw;
    if (
      typeof v !== 'number' ||
      !Number.isFinite(v) ||
      v < min ||
      v > max ||
      (integer && !Number.isInteger(v))
    ) {
      throw new RuleValidationError(
        key,
        `${key} must be ${integer ? 'an integer' : 'a number'} between ${min} and ${max}`,
      );
    }
    out[key] = v;
  };
  numberField('threshold', 0, 1);
  numberField('shortWindowMs', 10_000, DAY, true);
  numberField('longWindowMs', 10_000, 7 * DAY, true);
  numberField('minRetries', 0, 1_000_000, true);
  numberField('forMs', 0, DAY, true);
  numberField('keepFiringForMs', 0, DAY, true);
  if ('enabled' in edit && edit.enabled !== undefined) {
    const v = edit.enabled;
    if (typeof v === 'boolean') out.enabled = v;
    else if (v === 'true' || v === 'on') out.enabled = true;
    else if (v === 'false' || v === 'off') out.enabled = false;
    else throw new RuleValidationError('enabled', 'enabled must be true or false');
  }
  if ('severity' in edit && edit.severity !== undefined) {
    if (edit.severity !== 'warning' && edit.severity !== 'critical') {
      throw new RuleValidationError('severity', 'severity must be warning or critical');
    }
    out.severity = edit.severity;
  }
  if ('name' in edit && edit.name !== undefined) {
    if (typeof edit.name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]{0,63}$/.test(edit.name)) {
      throw new RuleValidationError(
        'name',
        'name must be an identifier (letters, digits, _), at most 64 characters',
      );
    }
    out.name = edit.name;
  }
  const rule = out as unknown as AlertRule;
  if (rule.shortWindowMs > rule.longWindowMs) {
    throw new RuleValidationError('shortWindowMs', 'shortWindowMs must not be longer than longWindowMs');
  }
  return rule;
}
