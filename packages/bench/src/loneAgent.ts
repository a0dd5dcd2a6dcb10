/*
 * The lone agent (issue #18): one agent, one conversation, one tool call at a time. The model thinks between calls,
 * so the next call starts only when the previous one has answered: every second a failing call costs is a second
 * the agent does not work, and a policy that hangs on a dead server completes fewer calls in the window.
 */
import type { FaultKind } from './faults.js';
import type { ScenarioSpec, Segment } from './scenarios.js';

const MINUTE = 60_000;
/** The model's think time between an answer and the next call. */
export const LONE_AGENT_THINK_MS = 1_500;
/** The deadline of the "with a deadline" variants: a tool timeout an agent would set (SDK `timeout`, signal). */
export const LONE_AGENT_DEADLINE_MS = 10_000;
/**
 * Without a deadline, the oracle's limit: a call may usefully wait this long (about the naive loop's 31 s of
 * backoff); the oracle waits only when the endpoint is back within it, and fails at once otherwise.
 */
export const LONE_AGENT_NO_DEADLINE_LIMIT_MS = 30_000;
/** The dead server stays down past the window, so that the calls still running at its end meet it down too. */
const AFTER_WINDOW_MS = 60 * MINUTE;

const uniform = (random: () => number, min: number, max: number) => min + random() * (max - min);
const refusedOr503 = (random: () => number): FaultKind =>
  random() < 0.5 ? 'connection_refused' : 'unavailable_503_html';

/** Down periods of `length` ms (uniform range) every `gap` ms (uniform range), from `from` to `to`. */
function repeatedOutages(
  random: () => number,
  from: number,
  to: number,
  gap: readonly [number, number],
  length: readonly [number, number],
): Segment[] {
  const segments: Segment[] = [];
  for (let t = from + uniform(random, gap[0], gap[1]); t < to; t += uniform(random, gap[0], gap[1])) {
    const end = t + uniform(random, length[0], length[1]);
    if (end > to) break;
    segments.push({
      from: Math.round(t),
      to: Math.round(end),
      state: { kind: 'down', fault: refusedOr503(random) },
    });
    t = end;
  }
  return segments;
}

const base = {
  callEveryMs: LONE_AGENT_THINK_MS,
  intrinsic: {},
  noise: {},
} as const;

/** A scenario in two variants: without a deadline (the oracle's limit 30 s), and with a 10 s deadline. */
function bothDeadlines(spec: Omit<ScenarioSpec, 'deadlineMs' | 'callEveryMs' | 'intrinsic' | 'noise'>) {
  const think = `one agent, think time ${LONE_AGENT_THINK_MS / 1000} s between calls`;
  return [
    {
      ...base,
      ...spec,
      description: `${spec.description} ${think}, no deadline.`,
      deadlineMs: LONE_AGENT_NO_DEADLINE_LIMIT_MS,
      withoutDeadline: true,
    },
    {
      ...base,
      ...spec,
      key: `${spec.key}-deadline`,
      name: `${spec.name}, ${LONE_AGENT_DEADLINE_MS / 1000} s deadline`,
      description: `${spec.description} ${think}, ${LONE_AGENT_DEADLINE_MS / 1000} s deadline per call.`,
      deadlineMs: LONE_AGENT_DEADLINE_MS,
    },
  ] satisfies ScenarioSpec[];
}

const deadServer = (fault: FaultKind, label: string, key: string) =>
  bothDeadlines({
    key,
    name: `lone agent, dead server (${label})`,
    description: `10 min; the server works for 30 s, then is dead to the end (${label}).`,
    durationMs: 10 * MINUTE,
    agent: { thinkMs: LONE_AGENT_THINK_MS, shape: 'dead' },
    segments: () => [{ from: 30_000, to: 10 * MINUTE + AFTER_WINDOW_MS, state: { kind: 'down', fault } }],
  });

export const LONE_AGENT_SCENARIOS: readonly ScenarioSpec[] = [
  ...deadServer('connection_refused', 'connection refused', 'lone-dead-refused'),
  ...deadServer('unavailable_503_html', '503', 'lone-dead-503'),
  ...bothDeadlines({
    key: 'lone-blip',
    name: 'lone agent, 3 s blips',
    description: '5 min; every 20-40 s the server fails for 3 s (connection refused or 503).',
    durationMs: 5 * MINUTE,
    agent: { thinkMs: LONE_AGENT_THINK_MS, shape: 'recovering' },
    segments: (random) => repeatedOutages(random, 0, 5 * MINUTE, [20_000, 40_000], [3_000, 3_000]),
  }),
  ...bothDeadlines({
    key: 'lone-outage20',
    name: 'lone agent, 20 s outages',
    description: '5 min; two outages of 20 s (connection refused or 503), near 60 s and near 180 s (± 5 s).',
    durationMs: 5 * MINUTE,
    agent: { thinkMs: LONE_AGENT_THINK_MS, shape: 'recovering' },
    segments: (random) =>
      [60_000, 180_000].map((start) => {
        const from = Math.round(start + uniform(random, -5_000, 5_000));
        return { from, to: from + 20_000, state: { kind: 'down', fault: refusedOr503(random) } };
      }),
  }),
];
