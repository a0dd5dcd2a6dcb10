import { getRuntime } from '../runtime';
import { type Experiment, shapeExperiment } from './experiments';
import type { TimeQuery } from './types';

/** The Experiments page's read: the source's primitive numbers, shaped (statistics, verdicts, matrix). */
export async function fetchExperiment(q: TimeQuery): Promise<Experiment> {
  try {
    return shapeExperiment(await getRuntime().source.experimentData(q));
  } catch (error) {
    console.error('[dashboard] failed to fetch experiments:', error);
    throw new Error('Failed to fetch experiments.');
  }
}
