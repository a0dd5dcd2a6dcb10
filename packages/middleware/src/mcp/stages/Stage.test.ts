import { describe, expect, it } from 'vitest';
import { ResilienceError } from '../../errors/ResilienceError.js';
import { failed, type Settled, settle } from './Settled.js';
import { runStages, type Stage, type StageCall } from './Stage.js';

const call: StageCall = {
  server: 's',
  tool: 't',
  arguments: {},
  options: {},
  startedAt: 0,
  safeToRepeat: false,
};
const error = new ResilienceError(
  { class: 'retryable', type: 'unavailable', execution: 'not_sent', source: 'test' },
  3,
  'max_attempts',
  undefined,
);
const ok: Settled = { kind: 'value', value: 'ok', changedState: false };

/** A stage that logs its hooks under `name`; `answer`: what its `before` answers with. */
const logging = (log: string[], name: string, answer?: Settled): Stage => ({
  before: () => {
    log.push(`before ${name}`);
    return answer;
  },
  after: (_, settled) => {
    log.push(`after ${name} saw ${settled.kind}`);
    return name === 'inner' ? failed(error) : settled;
  },
});

describe('runStages', () => {
  it('runs the befores in order, the send, then the afters in reverse, each seeing the one before', async () => {
    const log: string[] = [];
    const settled = await runStages([logging(log, 'outer'), logging(log, 'inner')], call, async () => {
      log.push('send');
      return ok;
    });
    expect(log).toEqual([
      'before outer',
      'before inner',
      'send',
      'after inner saw value',
      'after outer saw failed',
    ]);
    expect(() => settle(settled)).toThrow(error);
  });

  it('ends at the first before that answers: nothing is sent, no after runs', async () => {
    const log: string[] = [];
    const answer: Settled = { kind: 'failed', error, answer: { kind: 'result', result: { isError: true } } };
    const settled = await runStages(
      [logging(log, 'outer', answer), logging(log, 'inner')],
      call,
      async () => {
        log.push('send');
        return ok;
      },
    );
    expect(log).toEqual(['before outer']);
    expect(settle(settled)).toEqual({ isError: true });
  });
});
