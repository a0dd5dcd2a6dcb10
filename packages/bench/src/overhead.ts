import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, platform, release, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { createResilience } from '@mcp-resilience/middleware';
import { createOtelRecorder } from '@mcp-resilience/middleware/otel';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  MeterProvider,
  PeriodicExportingMetricReader,
  type PushMetricExporter,
} from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor, type SpanExporter } from '@opentelemetry/sdk-trace-base';
import {
  ConsecutiveBreaker,
  circuitBreaker,
  ExponentialBackoff,
  handleAll,
  retry,
  TimeoutStrategy,
  timeout,
  wrap,
} from 'cockatiel';
import CircuitBreaker from 'opossum';
import pRetry from 'p-retry';

export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly node: string;
  readonly os: string;
  readonly memoryGiB: number;
}

export function machine(): Machine {
  const list = cpus();
  return {
    cpu: list[0]?.model.trim() ?? 'unknown',
    cores: list.length,
    node: process.version,
    os: `${platform()} ${release()}`,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
  };
}

export interface OverheadRow {
  readonly key: string;
  readonly name: string;
  readonly short: string;
  /** The best (least disturbed) round's ns per call. */
  readonly nsPerCall: number;
  /** The median round's ns per call. */
  readonly medianNsPerCall: number;
  /** nsPerCall minus the bare call's. */
  readonly addedNs: number;
  /** Every round's ns per call, for the spread. */
  readonly rounds: number[];
}

export interface OverheadResult {
  readonly machine: Machine;
  readonly callsPerRound: number;
  readonly rounds: number;
  readonly rows: OverheadRow[];
  /** Spans the no-op exporter received vs the spans the telemetry-on runs created (2 per call). */
  readonly spansExported: number;
  readonly spansExpected: number;
  /** The versions of the libraries measured (package name → version), as installed. */
  readonly libraries?: Readonly<Record<string, string>>;
}

/** The installed version of each library measured here, read from its package.json above its entry point. */
export function libraryVersions(
  names = ['p-retry', 'cockatiel', 'opossum', '@opentelemetry/sdk-trace-base'],
) {
  const require = createRequire(import.meta.url);
  const versionOf = (name: string) => {
    for (let dir = dirname(require.resolve(name)); dir !== dirname(dir); dir = dirname(dir)) {
      const file = join(dir, 'package.json');
      if (!existsSync(file)) continue;
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === name && pkg.version) return pkg.version;
    }
    return 'unknown';
  };
  return Object.fromEntries(names.map((name) => [name, versionOf(name)]));
}

/** Lets timers and I/O run (the batch span processor's export timer), as a real process would. */
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

interface Variant {
  readonly key: string;
  readonly name: string;
  /** A short label for charts. */
  readonly short: string;
  readonly run: () => Promise<unknown>;
}

async function timeBatch(variant: Variant, n: number): Promise<number> {
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) {
    await variant.run();
    if ((i & 255) === 255) await yieldToLoop();
  }
  return Number(process.hrtime.bigint() - start) / n;
}

const median = (values: readonly number[]) => {
  const s = [...values].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/**
 * The success path of one call through each library, measured in one process, interleaved: every round runs
 * `callsPerRound` calls of each variant in turn (rotating which goes first), and each variant's figure is its
 * best round (the least disturbed by other processes on a shared machine; the median is kept too). Runs against
 * the middleware's built `dist`.
 */
export async function measureOverhead(callsPerRound = 20_000, rounds = 9): Promise<OverheadResult> {
  const fn = async () => 42;

  const cockatiel = wrap(
    retry(handleAll, { maxAttempts: 3, backoff: new ExponentialBackoff() }),
    circuitBreaker(handleAll, { halfOpenAfter: 10_000, breaker: new ConsecutiveBreaker(5) }),
  );
  // The reference for the deadline's cost: cockatiel's timeout (an AbortController and a timer per call) inside
  // the same retry + breaker, as a user who wants a per-call deadline would compose it.
  const cockatielTimeout = wrap(
    retry(handleAll, { maxAttempts: 3, backoff: new ExponentialBackoff() }),
    circuitBreaker(handleAll, { halfOpenAfter: 10_000, breaker: new ConsecutiveBreaker(5) }),
    timeout(30_000, TimeoutStrategy.Aggressive),
  );
  const opossum = new CircuitBreaker(fn, {});
  const plain = createResilience();
  const withDeadline = createResilience({ timeoutMs: 30_000 });

  let spansExported = 0;
  const spanExporter: SpanExporter = {
    export(spans, done) {
      spansExported += spans.length;
      done({ code: 0 });
    },
    shutdown: async () => {},
  };
  const metricExporter: PushMetricExporter = {
    export(_metrics, done) {
      done({ code: 0 });
    },
    forceFlush: async () => {},
    shutdown: async () => {},
  };
  const resource = resourceFromAttributes({ 'service.name': 'mcp-resilience-bench' });
  const tracerProvider = new BasicTracerProvider({
    resource,
    spanProcessors: [new BatchSpanProcessor(spanExporter)],
  });
  const meterProvider = new MeterProvider({
    resource,
    readers: [
      new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 }),
    ],
  });
  const withTelemetry = createResilience({
    recorder: createOtelRecorder({ tracerProvider, meterProvider }),
  });

  const callOptions = { endpoint: 'weather', operation: 'tools/call' } as const;
  const callerSignal = new AbortController().signal;
  const variants: Variant[] = [
    { key: 'bare', name: 'bare call', short: 'bare call', run: fn },
    { key: 'p-retry', name: 'p-retry (defaults)', short: 'p-retry', run: () => pRetry(fn) },
    {
      key: 'cockatiel',
      name: 'cockatiel retry + breaker',
      short: 'cockatiel retry + breaker',
      run: () => cockatiel.execute(fn),
    },
    {
      key: 'cockatiel-timeout',
      name: 'cockatiel timeout (30 s) + retry + breaker',
      short: 'cockatiel timeout + retry + breaker',
      run: () => cockatielTimeout.execute(fn),
    },
    {
      key: 'opossum',
      name: 'opossum breaker (defaults: 10 s timeout timer per call)',
      short: 'opossum breaker',
      run: () => opossum.fire(),
    },
    {
      key: 'mcp',
      name: 'mcp-resilience, telemetry off',
      short: 'mcp-resilience',
      run: () => plain.execute(fn, callOptions),
    },
    {
      key: 'mcp-signal',
      name: 'mcp-resilience, telemetry off, with a caller AbortSignal',
      short: 'mcp-resilience + signal',
      run: () => plain.execute(fn, { ...callOptions, signal: callerSignal }),
    },
    {
      key: 'mcp-deadline',
      name: 'mcp-resilience, telemetry off, timeoutMs 30 s',
      short: 'mcp-resilience + timeoutMs',
      run: () => withDeadline.execute(fn, callOptions),
    },
    {
      key: 'mcp-otel',
      name: 'mcp-resilience, telemetry on (OpenTelemetry SDK)',
      short: 'mcp-resilience + OpenTelemetry',
      run: () => withTelemetry.execute(fn, callOptions),
    },
  ];

  for (const v of variants) await timeBatch(v, callsPerRound / 2);
  await tracerProvider.forceFlush();
  const spansBefore = spansExported;
  const perVariant = new Map<string, number[]>(variants.map((v) => [v.key, []]));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < variants.length; i++) {
      const v = variants[(i + round) % variants.length]!;
      perVariant.get(v.key)!.push(await timeBatch(v, callsPerRound));
    }
  }
  await tracerProvider.forceFlush();
  const spansExpected = 2 * callsPerRound * rounds;
  const exported = spansExported - spansBefore;
  opossum.shutdown();
  await tracerProvider.shutdown();
  await meterProvider.shutdown();

  const bare = Math.min(...perVariant.get('bare')!);
  return {
    machine: machine(),
    callsPerRound,
    rounds,
    rows: variants.map((v) => {
      const values = perVariant.get(v.key)!;
      const ns = Math.min(...values);
      return {
        key: v.key,
        name: v.name,
        short: v.short,
        nsPerCall: ns,
        medianNsPerCall: median(values),
        addedNs: ns - bare,
        rounds: values,
      };
    }),
    spansExported: exported,
    spansExpected,
    libraries: libraryVersions(),
  };
}

export interface MemoryResult {
  readonly maxEndpoints: number;
  readonly baseBytes: number;
  /** Heap after 10k distinct endpoint keys (each: one successful and one failed call). */
  readonly after10kBytes: number;
  readonly tracked10k: number;
  /** Heap after 100k distinct keys, with the default bound. */
  readonly after100kBytes: number;
  readonly tracked100k: number;
  /** Heap after 100k distinct keys with the bound lifted (maxEndpoints: 1e6), for comparison. */
  readonly unbounded100kBytes: number;
  readonly trackedUnbounded: number;
  readonly bytesPerEndpoint: number;
}

/**
 * Memory per tracked endpoint and its bound: heap (after full GCs) before, after 10k and after 100k distinct
 * endpoint keys. Needs `--expose-gc`.
 */
export async function measureMemory(gc: () => void): Promise<MemoryResult> {
  const heap = () => {
    gc();
    gc();
    return process.memoryUsage().heapUsed;
  };
  const ok = async () => 42;
  const failing = async () => {
    throw Object.assign(new Error('Service Unavailable'), { status: 503 });
  };
  const track = async (resilience: ReturnType<typeof createResilience>, from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const endpoint = `mcp-server-${i}.tools.internal`;
      await resilience.execute(ok, { endpoint });
      await resilience.execute(failing, { endpoint, maxAttempts: 1 }).catch(() => {});
    }
  };

  const bounded = createResilience();
  const baseBytes = heap();
  await track(bounded, 0, 10_000);
  const after10kBytes = heap();
  const tracked10k = bounded.breakers().length;
  await track(bounded, 10_000, 100_000);
  const after100kBytes = heap();
  const tracked100k = bounded.breakers().length;

  const unbounded = createResilience({ maxEndpoints: 1_000_000 });
  const beforeUnbounded = heap();
  await track(unbounded, 0, 100_000);
  const unbounded100kBytes = baseBytes + (heap() - beforeUnbounded);
  const trackedUnbounded = unbounded.breakers().length;

  return {
    maxEndpoints: bounded.options.maxEndpoints,
    baseBytes,
    after10kBytes,
    tracked10k,
    after100kBytes,
    tracked100k,
    unbounded100kBytes,
    trackedUnbounded,
    bytesPerEndpoint: (after10kBytes - baseBytes) / 10_000,
  };
}
