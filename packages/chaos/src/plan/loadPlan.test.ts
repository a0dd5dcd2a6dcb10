import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPlan } from './loadPlan.js';

const plans = join(import.meta.dirname, '../../plans');

describe('loadPlan', () => {
  it('loads every example plan', async () => {
    const files = await readdir(plans);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      expect((await loadPlan(join(plans, file))).faults.length).toBeGreaterThan(0);
    }
  });

  it('reports an unreadable file as a plan error', async () => {
    await expect(loadPlan('/nonexistent/plan.yaml')).rejects.toThrow('plan: cannot read the file (ENOENT)');
  });
});
