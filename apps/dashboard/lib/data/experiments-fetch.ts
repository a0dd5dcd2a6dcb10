import { getRuntime } from '../runtime';
import { shapeExperiment } from './experiments';
import { type ExperimentPage, MAX_VERDICT_SERVERS, serversDiffer, serverVerdicts } from './server-verdicts';
import type { TimeQuery } from './types';

/**
 * The Experiments page's read: the source's primitive numbers, shaped (statistics, verdicts, matrix); without
 * a server filter, also each server's verdicts (at most `MAX_VERDICT_SERVERS`), read as the canary alert
 * reads them, and where they differ from the pooled one.
 */
export async function fetchExperiment(q: TimeQuery): Promise<ExperimentPage> {
  try {
    const source = getRuntime().source;
    const experiment = shapeExperiment(await source.experimentData(q));
    if (q.filters.server !== undefined || experiment.comparisons.length === 0)
      return { ...experiment, servers: [], differ: [] };
    const names = (await source.dimensions(q)).servers.slice(0, MAX_VERDICT_SERVERS);
    const perServer = await Promise.all(
      names.map(async (server) => ({
        server,
        variants: (await source.experimentData({ ...q, filters: { ...q.filters, server } })).variants,
      })),
    );
    const servers = serverVerdicts(perServer);
    return { ...experiment, servers, differ: serversDiffer(experiment.comparisons, servers) };
  } catch (error) {
    console.error('[dashboard] failed to fetch experiments:', error);
    throw new Error('Failed to fetch experiments.');
  }
}
