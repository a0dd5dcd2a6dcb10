import { createIngestSink } from '../lib/ingest/ingest-sink';
import type { MetricsRequest } from '../lib/otlp/model';
import type { EmbeddedStore } from '../lib/store/embedded-store';
import { breakerGaugeRequest, type GaugeBreaker } from '../test/support/breaker-gauges';

/**
 * Stores a fleet's per-tool breakers, as the Breakers page's benches need them: `instances` agent instances report
 * `perInstance` breakers each (one server per instance), all closed, then 1% of them open and 0.5% half-open
 * (transitions included). Returns how many breakers the store holds.
 */
export function storeFleetBreakers(
  store: EmbeddedStore,
  decode: (body: Buffer, encoding: 'json') => MetricsRequest,
  instances: number,
  perInstance: number,
): number {
  const sink = createIngestSink(store);
  const now = Date.now();
  for (const round of [0, 1]) {
    for (let n = 0; n < instances; n++) {
      const breakers = Array.from({ length: perInstance }, (_, i): GaugeBreaker => {
        const k = n * perInstance + i;
        const state =
          round === 0 ? 'closed' : k % 100 === 7 ? 'open' : k % 200 === 13 ? 'half_open' : 'closed';
        return {
          server: `fleet-srv-${String(n).padStart(3, '0')}`,
          tool: `tool-${String(i).padStart(4, '0')}`,
          state,
        };
      });
      const request = breakerGaugeRequest(breakers, now - 60_000 + round * 30_000, {
        service: 'fleet-agent',
        instance: `fleet-${n}`,
      });
      sink.metrics(decode(Buffer.from(JSON.stringify(request)), 'json'));
    }
  }
  return store.db.prepare('SELECT COUNT(*) FROM breakers').pluck().get() as number;
}
