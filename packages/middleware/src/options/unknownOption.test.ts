import { readFileSync } from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { createToolGuard } from '../adapters/toolGuard.js';
import { createResilience } from '../createResilience.js';
import { withResilience } from '../mcp/withResilience.js';
import { createOtelRecorder } from '../otel/createOtelRecorder.js';
import { closestName } from './closestName.js';
import { CORE_PATHS, GUARD_PATHS, MCP_PATHS } from './optionPaths.js';

/*
 * An unknown top-level option is refused with every name the entry accepts: the grouped ones and the flat names
 * of the first versions (these were missing: `withResilience` listed neither `mcp` nor `server` nor
 * `breakerBreakMs`, and named `createResilience` as the owner). The names are checked both ways against sources
 * other than the list itself: each listed name is accepted, and each name of the README's flat tables and of the
 * path tables is listed.
 */

type Entry = (options: Record<string, unknown>) => unknown;

const core: Entry = (o) => createResilience(o);
const mcp: Entry = (o) => withResilience(new Client({ name: 'test', version: '1.0.0' }), o);
const tools: Entry = (o) => createToolGuard(o);

interface Subject {
  readonly owner: string;
  /** The line above its table in the README's "Flat names". */
  readonly table: string;
  readonly paths: Readonly<Record<string, string>>;
  readonly run: Entry;
}

const entries: readonly Subject[] = [
  { owner: 'createResilience', table: '`createResilience`', paths: {}, run: core },
  { owner: 'withResilience', table: '`withResilience`', paths: MCP_PATHS, run: mcp },
  { owner: 'resilient tools', table: 'The framework adapters', paths: GUARD_PATHS, run: tools },
];

/** The message of what `run` throws for `options` (undefined: nothing thrown). */
function refusal(run: Entry, options: Record<string, unknown>): string | undefined {
  try {
    run(options);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** The names a refusal lists as known (grouped and flat). */
function listed(message: string): string[] {
  const known = /; known options: ([^;]*)(?:; flat names of the first versions: (.*))?$/.exec(message);
  if (!known) throw new Error(`no list of known options in: ${message}`);
  return [...(known[1] ?? '').split(', '), ...(known[2] ?? '').split(', ')].filter((n) => n !== '');
}

/** The flat names of the README's table under the line that starts with `heading`. */
function readmeFlatNames(heading: string): string[] {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const lines = readme.slice(readme.indexOf('## Flat names')).split('\n');
  const rows: string[] = [];
  for (const line of lines.slice(lines.findIndex((l) => l.startsWith(heading)) + 1)) {
    if (line.startsWith('|')) rows.push(line);
    else if (rows.length > 0) break;
  }
  return rows.flatMap((row) => /^\| `(\w+)`/.exec(row)?.[1] ?? []);
}

describe('an unknown option', () => {
  for (const { owner, table, paths, run } of entries) {
    it(`${owner}: lists every name it accepts, and accepts every name it lists`, () => {
      const message = refusal(run, { zzzUnknown: 1 });
      expect(message).toMatch(new RegExp(`^${owner}: unknown option 'zzzUnknown'; known options: `));
      const names = listed(message as string);
      expect(new Set(names).size).toBe(names.length);
      // Each listed name is taken: a wrong value is refused for its value, never as unknown.
      for (const name of names) {
        expect(refusal(run, { [name]: Symbol('wrong') }) ?? '', name).not.toMatch(/unknown option/);
      }
      // Each name the README's table and the path tables give is listed.
      const documented = readmeFlatNames(table);
      expect(documented.length, table).toBeGreaterThan(4);
      const groups = [...Object.values(CORE_PATHS), ...Object.values(paths)].map((p) => p.split('.')[0]);
      const coreFlat = readmeFlatNames('`createResilience`');
      for (const name of new Set([...documented, ...coreFlat, ...groups]))
        expect(names, name).toContain(name);
    });
  }

  it('is named with the accepted name it is closest to, flat or grouped', () => {
    const cases: ReadonlyArray<[Entry, Record<string, unknown>, string]> = [
      [core, { breakerBrakeMs: 1 }, "unknown option 'breakerBrakeMs' (did you mean 'breakerBreakMs'?);"],
      [core, { maxattempts: 2 }, "unknown option 'maxattempts' (did you mean 'maxAttempts'?);"],
      [
        core,
        { breaker: { brakeMs: 1 } },
        "'breaker.brakeMs' (did you mean 'breaker.breakMs'?); known options of 'breaker':",
      ],
      [core, { retyr: {} }, "unknown option 'retyr' (did you mean 'retry'?);"],
      [
        mcp,
        { negativCacheTtlMs: 1 },
        "withResilience: unknown option 'negativCacheTtlMs' (did you mean 'negativeCacheTtlMs'?);",
      ],
      [mcp, { mpc: {} }, "withResilience: unknown option 'mpc' (did you mean 'mcp'?);"],
      [
        tools,
        { idempotant: true },
        "resilient tools: unknown option 'idempotant' (did you mean 'idempotent'?);",
      ],
      [
        core,
        { experiment: { variants: { canary: { jiter: 'none' } }, split: { canary: 1 } } },
        "unknown option 'experiment.variants.canary.jiter' (did you mean 'experiment.variants.canary.jitter'?);",
      ],
    ];
    for (const [run, options, message] of cases) expect(refusal(run, options)).toContain(message);
  });

  it('of the other option objects is named with its closest known name too', () => {
    expect(refusal((o) => createOtelRecorder(o), { meterProvidr: {} })).toMatch(
      /^createOtelRecorder: unknown option 'meterProvidr' \(did you mean 'meterProvider'\?\); known options: /,
    );
  });

  it('is named alone when no accepted name is close', () => {
    expect(refusal(core, { colour: 'red' })).toMatch(/^createResilience: unknown option 'colour'; known/);
    expect(refusal(mcp, { retries: 2 })).toMatch(/^withResilience: unknown option 'retries'; known/);
    const long = 'x'.repeat(200);
    const message = refusal(core, { [long]: 1 }) ?? '';
    expect(message).toContain(`unknown option '${'x'.repeat(80)}…'; known options: retry,`);
  });

  it('given as undefined is skipped, as every option is', () => {
    for (const { run } of entries) expect(refusal(run, { zzzUnknown: undefined })).toBeUndefined();
  });
});

describe('closestName', () => {
  it('finds a name in another case, or a few edits away, and nothing far', () => {
    const known = ['retry', 'breaker', 'breakerBreakMs', 'maxAttempts'];
    expect(closestName('MAXATTEMPTS', known)).toBe('maxAttempts');
    expect(closestName('breakreBreakMs', known)).toBe('breakerBreakMs');
    expect(closestName('breakr', known)).toBe('breaker');
    expect(closestName('colour', known)).toBeUndefined();
  });
});
