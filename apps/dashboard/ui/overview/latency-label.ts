import type { LatencyStat } from '@/lib/data/types';

/** What a latency row's calls were, beside their server: the tool, else the method, else a plain "(no tool)". */
export interface LatencyLabel {
  readonly text: string;
  /** `tool`: the `gen_ai.tool.name`; `method`: calls without a tool (`tools/list`, ...); `none`: neither given. */
  readonly kind: 'tool' | 'method' | 'none';
  /** The hover text, saying what the row holds. */
  readonly title: string;
}

/**
 * The label of a latency row. Calls without a tool attribute (any method but `tools/call`, or a plain
 * `execute`) are named by their method, or "(no tool)" when they carried no method either: never an empty label.
 */
export function latencyLabel(row: Pick<LatencyStat, 'server' | 'tool' | 'method'>): LatencyLabel {
  if (row.tool !== '') return { text: row.tool, kind: 'tool', title: `${row.server} / ${row.tool}` };
  if (row.method !== '') {
    return {
      text: `${row.method} (no tool)`,
      kind: 'method',
      title: `${row.server}: ${row.method} calls, which name no tool`,
    };
  }
  return {
    text: '(no tool)',
    kind: 'none',
    title: `${row.server}: calls that named neither a tool nor a method`,
  };
}
