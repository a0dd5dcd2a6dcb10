import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GroundTruthLog } from './GroundTruthLog.js';

describe('GroundTruthLog', () => {
  it('numbers entries and writes each settled entry once as a JSON line', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'chaos-log-')), 'log.jsonl');
    const log = new GroundTruthLog(file);
    const fields = {
      time: 5,
      transport: 'stdio',
      method: 'tools/call',
      tool: 'search',
      fault: null,
    } as const;
    const first = log.record({ ...fields, requestId: 1 });
    log.record({ ...fields, requestId: 2 });
    first.executed = true;
    log.settle(first);
    log.settle(first);
    log.flush();
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines).toEqual([
      { seq: 1, ...fields, requestId: 1, executed: true },
      { seq: 2, ...fields, requestId: 2, executed: false },
    ]);
    expect(log.entries.map((entry) => entry.seq)).toEqual([1, 2]);
  });
});
