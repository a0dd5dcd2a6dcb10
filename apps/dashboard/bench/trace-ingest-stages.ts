import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../lib/config';
import { createIngestSink } from '../lib/ingest/ingest-sink';
import { decodeTraces } from '../lib/otlp/decode';
import { decompressCounted } from '../lib/otlp/decompress-counted';
import { elementScanner } from '../lib/otlp/element-scanner';
import type { TracesRequest } from '../lib/otlp/model';
import { createRuntime } from '../lib/runtime';

/** CPU milliseconds of this process so far (every thread: zlib's too). */
const cpuMs = () => {
  const c = process.cpuUsage();
  return (c.user + c.system) / 1000;
};

/** Attempt spans per CPU second of each stage of the trace ingest, in process (no HTTP). */
export interface TraceStages {
  /** gunzip + element count + decode (`decompressCounted`, `decodeTraces`): no store. */
  readonly decodeOnly: number;
  /** The ingest sink alone (map + SQLite write, one transaction per request) on decoded requests, a fresh store. */
  readonly insertOnly: number;
  /** What both together allow on one core: 1 / (1/decode + 1/insert). */
  readonly floor: number;
}

/**
 * The decode-only and insert-only references of the trace ingest, on the bench's own bodies: where a request's
 * CPU goes, so the HTTP figure can be read against what one core can do at all.
 */
export async function measureTraceStages(
  bodies: readonly Uint8Array[],
  attempts: number,
): Promise<TraceStages> {
  const decoded: TracesRequest[] = [];
  let t = cpuMs();
  for (const body of bodies) {
    const scanner = elementScanner('protobuf', 'traces', undefined);
    const counted = await decompressCounted(Buffer.from(body), 'gzip', scanner, 64 * 1024 * 1024);
    decoded.push(decodeTraces(counted, 'protobuf'));
  }
  const decodeMs = cpuMs() - t;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'dashboard-bench-stages-'));
  const rt = createRuntime(loadConfig({ DATA_DIR: dataDir, RETENTION_DAYS: '8' }), { log: () => undefined });
  try {
    const sink = createIngestSink(rt.store!);
    t = cpuMs();
    for (const request of decoded) sink.traces(request);
    const insertMs = cpuMs() - t;
    const perSecond = (ms: number) => Math.round(attempts / (ms / 1000));
    return {
      decodeOnly: perSecond(decodeMs),
      insertOnly: perSecond(insertMs),
      floor: perSecond(decodeMs + insertMs),
    };
  } finally {
    await rt.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
