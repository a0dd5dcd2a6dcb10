import type { ClassifyContext } from './ClassifyContext.js';
import type { ErrorFacts } from './inspectError.js';
import { type ReadVerdict, readClassification, readVerdict } from './readClassification.js';
import { safeGet, safeIsArray, safeString } from './safeGet.js';

/** A user rule's decision; `execution` may still be missing (the built-ins then supply it). */
export type RuleMatch = ReadVerdict & { readonly source: string };

/** The endpoint and operation the rules are scoped by. */
export interface RuleScope {
  readonly endpoint?: string;
  readonly operation?: string;
}

/** A condition's value as a list (`404` and `[404, 410]` both allowed). */
function listOf(value: unknown): readonly unknown[] {
  if (!safeIsArray(value)) return [value];
  const items: unknown[] = [];
  for (let i = 0; i < 64; i++) {
    const item = safeGet(value, i);
    if (item === undefined) break;
    items.push(item);
  }
  return items;
}

const isRegExp = (value: unknown): value is RegExp => value instanceof RegExp;

/** `search` ignores `lastIndex`, so a rule's `/g` or `/y` RegExp gives the same answer every time. */
function messageMatches(condition: unknown, messages: readonly string[]): boolean {
  if (isRegExp(condition)) return messages.some((message) => message.search(condition) !== -1);
  if (typeof condition !== 'string') return false;
  const wanted = condition.toLowerCase();
  return messages.some((message) => message.toLowerCase().includes(wanted));
}

/** True when every condition the declarative rule gives holds for the error tree and the scope. */
function conditionsHold(rule: object, facts: readonly ErrorFacts[], scope: RuleScope): boolean {
  const checks: Array<[key: string, holds: (condition: unknown) => boolean]> = [
    ['endpoint', (condition) => scope.endpoint !== undefined && listOf(condition).includes(scope.endpoint)],
    [
      'operation',
      (condition) => scope.operation !== undefined && listOf(condition).includes(scope.operation),
    ],
    [
      'status',
      (condition) =>
        facts.some((fact) => fact.status !== undefined && listOf(condition).includes(fact.status)),
    ],
    [
      'code',
      (condition) => facts.some((fact) => fact.code !== undefined && listOf(condition).includes(fact.code)),
    ],
    [
      'errorName',
      (condition) => facts.some((fact) => fact.name !== undefined && listOf(condition).includes(fact.name)),
    ],
    [
      'message',
      (condition) =>
        messageMatches(
          condition,
          facts.flatMap((fact) => (fact.message === undefined ? [] : [fact.message])),
        ),
    ],
  ];
  return checks.every(([key, holds]) => {
    // Read directly: a condition whose getter throws makes the whole rule be skipped (the caller catches).
    const condition = (rule as Record<string, unknown>)[key];
    return condition === undefined || holds(condition);
  });
}

/**
 * Applies one user rule (at `index` in `context.rules`). A declarative rule matches when all its conditions hold;
 * a function rule matches when it returns a verdict. A full `Classification` returned by a function keeps its own
 * `source`; otherwise the source is `rule:<name>` (the rule's `name`, or the function's), or `rule:<index>`.
 * A rule that throws, or returns something that is not a verdict, does not match.
 */
export function matchRule(
  rule: unknown,
  index: number,
  error: unknown,
  facts: readonly ErrorFacts[],
  context: ClassifyContext,
  scope: RuleScope,
): RuleMatch | undefined {
  try {
    const name = safeString(rule, 'name');
    const source = `rule:${name === undefined || name === '' ? index : name}`;
    if (typeof rule === 'function') {
      const output: unknown = rule(error, context);
      const full = readClassification(output);
      if (full !== undefined) return full;
      const verdict = readVerdict(output);
      return verdict === undefined ? undefined : { ...verdict, source };
    }
    if (typeof rule !== 'object' || rule === null) return undefined;
    const verdict = readVerdict((rule as Record<string, unknown>).classify);
    if (verdict === undefined || !conditionsHold(rule, facts, scope)) return undefined;
    const { source: _ignored, message: _alsoIgnored, ...decided } = verdict;
    return { ...decided, source };
  } catch {
    return undefined;
  }
}
