import { readFile } from 'node:fs/promises';
import type { FaultPlan } from './FaultPlan.js';
import { PlanError } from './PlanError.js';
import { parsePlan } from './parsePlan.js';

/** Reads and validates a YAML or JSON fault plan file. Throws a {@link PlanError} (also when the file is unreadable). */
export async function loadPlan(file: string): Promise<FaultPlan> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new PlanError('plan', `cannot read the file (${reason})`);
  }
  return parsePlan(text);
}
