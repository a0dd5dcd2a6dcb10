import { type Clock, createResilience, type ResilienceOptions } from '../src/index.js';
import { createFakeClock, seededRandom } from '../src/testing/index.js';

/** Down intervals [from, to) in virtual milliseconds. */
type Outages = Array<[number, number]>;

export interface Scenario {
  readonly name: string;
  readonly outages: (random: () => number) => Outages;
}

const DURATION_MS = 600_000;
const CALL_EVERY_MS = 50;
const ATTEMPT_MS = 20;

/** Outages of `length()` ms starting every `gap()` ms. */
const periodic =
  (gap: (r: () => number) => number, length: (r: () => number) => number) =>
  (random: () => number): Outages => {
    const outages: Outages = [];
    for (let t = gap(random); t < DURATION_MS; t += gap(random)) {
      const end = t + length(random);
      outages.push([t, end]);
      t = end;
    }
    return outages;
  };

export const scenarios: Scenario[] = [
  {
    name: 'short blips (~100 ms)',
    outages: periodic(
      (r) => 2_000 + r() * 2_000,
      (r) => 60 + r() * 80,
    ),
  },
  {
    name: 'multi-second outages (2-4 s)',
    outages: periodic(
      (r) => 20_000 + r() * 20_000,
      (r) => 2_000 + r() * 2_000,
    ),
  },
  {
    name: 'mix',
    outages: periodic(
      (r) => 3_000 + r() * 10_000,
      (r) => (r() < 0.7 ? 60 + r() * 80 : 2_000 + r() * 2_000),
    ),
  },
];

export interface Result {
  readonly calls: number;
  readonly succeeded: number;
  readonly retries: number;
  readonly successfulRetries: number;
}

/**
 * Runs one scenario on virtual time: a call every 50 ms for 10 minutes against one endpoint that answers 503
 * during outages, each attempt taking 20 ms.
 */
export async function simulate(
  scenario: Scenario,
  options: ResilienceOptions,
  seed: number,
): Promise<Result> {
  const fake = createFakeClock(0);
  const random = seededRandom(seed);
  const clock: Clock = { now: fake.now, sleep: fake.sleep, random: seededRandom(seed + 1) };
  const outages = scenario.outages(random);
  const down = (t: number) => outages.some(([from, to]) => t >= from && t < to);
  const r = createResilience({ ...options, clock });
  let retries = 0;
  let successfulRetries = 0;
  let succeeded = 0;
  const calls: Promise<void>[] = [];
  const attempt = async ({ attempt }: { attempt: number }) => {
    const failing = down(clock.now());
    await clock.sleep(ATTEMPT_MS);
    if (attempt > 1) retries++;
    if (failing) throw Object.assign(new Error('Service Unavailable'), { status: 503 });
    if (attempt > 1) successfulRetries++;
    return 'ok';
  };
  const driver = (async () => {
    for (let t = 0; t < DURATION_MS; t += CALL_EVERY_MS) {
      await clock.sleep(CALL_EVERY_MS);
      calls.push(
        r.execute(attempt, { timeoutMs: 10_000 }).then(
          () => {
            succeeded++;
          },
          () => {},
        ),
      );
    }
  })();
  await fake.runAll(10_000_000);
  await driver;
  await Promise.all(calls);
  return { calls: calls.length, succeeded, retries, successfulRetries };
}
