import { type AddressPolicy, createAddressPolicy } from './alerts/address-policy';
import { AlertService } from './alerts/alert-service';
import { AlertStore } from './alerts/alert-store';
import { createNotifier, type Notifier } from './alerts/notifier';
import { type Config, ConfigError, loadConfig } from './config';
import { EmbeddedSource } from './data/embedded-source';
import type { MetricsSource } from './data/metrics-source';
import { maskPrometheusUrl, PrometheusClient } from './data/prometheus-client';
import { PrometheusSource } from './data/prometheus-source';
import { createIngestSink } from './ingest/ingest-sink';
import { ConnectionLimit } from './live/connection-limit';
import { LiveHub } from './live/hub';
import { BreakerPoller } from './live/poller';
import { createOtlpReceiver, createRefusingOtlpReceiver } from './otlp/receiver';
import { safeEqual } from './server/auth';
import { type Db, openDatabase } from './store/database';
import { EmbeddedStore } from './store/embedded-store';

export interface Runtime {
  readonly config: Config;
  /** The embedded store; undefined with `DASHBOARD_SOURCE=prometheus` (no telemetry is stored then). */
  readonly store: EmbeddedStore | undefined;
  readonly source: MetricsSource;
  readonly alertStore: AlertStore;
  readonly alerts: AlertService;
  readonly hub: LiveHub;
  readonly receive: ReturnType<typeof createOtlpReceiver>;
  /** Which addresses alert targets may reach (`ALERT_TARGET_ALLOWED_NETWORKS`). */
  readonly targetPolicy: AddressPolicy;
  /** The cap on live (SSE) connections. */
  readonly liveConnections: ConnectionLimit;
  /** Starts the background jobs (retention, alert evaluation, live polling for PromQL). */
  start(): void;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  readonly now?: () => number;
  readonly notifier?: Notifier;
  readonly log?: (message: string) => void;
}

const defaultLog = (message: string) => console.error(`[dashboard] ${message}`);

interface Backend {
  readonly store: EmbeddedStore | undefined;
  readonly db: Db;
  readonly source: MetricsSource;
  readonly receive: ReturnType<typeof createOtlpReceiver>;
  /** Retention of what this backend keeps (the alert history is pruned separately). */
  readonly retention: () => void;
  readonly poller?: BreakerPoller;
}

/** Changed breakers read (and pushed live) per query at most. */
const LIVE_BREAKER_CHUNK = 500;

function embeddedBackend(config: Config, options: RuntimeOptions, hub: LiveHub, log: (m: string) => void) {
  const store = new EmbeddedStore({
    dataDir: config.dataDir,
    retentionMs: config.retentionDays * 86_400_000,
    maxCalls: config.maxStoredCalls,
    maxAttempts: config.maxStoredAttempts,
    maxTransitions: config.maxStoredTransitions,
    now: options.now,
    maxFutureSkewMs: config.limits.maxFutureSkewMs,
    maxLabelValues: config.limits.maxLabelValues,
    maxCumulativeSeries: config.limits.maxCumulativeSeries,
    maxCumulativeSeriesBytes: config.limits.maxCumulativeSeriesBytes,
  });
  const source = new EmbeddedSource(store, { staleMs: config.breakerStaleMs });
  store.subscribe({
    // Only the changed breakers are read (in chunks: SQL parameters), never every breaker per ingest.
    breakers: (changed) => {
      void (async () => {
        const key = (server: string, tool: string | null) => `${server}\u0001${tool ?? ''}`;
        for (let i = 0; i < changed.length; i += LIVE_BREAKER_CHUNK) {
          const chunk = changed.slice(i, i + LIVE_BREAKER_CHUNK);
          const found = await source.breakers({ filters: { breakers: chunk } });
          const wanted = new Set(chunk.map((c) => key(c.server, c.tool)));
          const breakers = found.filter((b) => wanted.has(key(b.server, b.tool)));
          const present = new Set(breakers.map((b) => key(b.server, b.tool)));
          hub.publish({
            type: 'breaker',
            breakers,
            removed: chunk
              .filter((c) => !present.has(key(c.server, c.tool)))
              .map((c) => ({ server: c.server, tool: c.tool || null })),
          });
        }
      })().catch((error) => log(`live breakers failed: ${(error as Error)?.message ?? String(error)}`));
    },
    ingested: (signal) => hub.publish({ type: 'ingest', signal }),
  });
  const receive = createOtlpReceiver({
    sink: createIngestSink(store),
    maxBodyBytes: config.maxBodyBytes,
    maxConcurrent: config.maxConcurrentIngest,
    maxBufferedBytes: config.limits.maxBufferedBytes,
    maxBufferedPerClient: config.limits.maxBufferedPerClient,
    bodyTimeoutMs: config.limits.bodyTimeoutMs,
    minBodyBytesPerSecond: config.limits.minBodyBytesPerSecond,
    bodyRateWindowMs: config.limits.bodyRateWindowMs,
    decode: {
      maxAttributeLength: config.limits.maxAttributeLength,
      elements: {
        points: config.limits.maxItemsPerRequest,
        spans: config.limits.maxItemsPerRequest,
        attributes: config.limits.maxAttributesPerRequest,
        stringBytes: config.limits.maxStringBytes,
      },
    },
    token: config.ingestToken,
    checkToken: (given) => safeEqual(given, config.ingestToken),
    onError: (error) => log(`ingest failed: ${(error as Error)?.stack ?? String(error)}`),
  });
  return {
    store,
    db: store.db,
    source,
    receive,
    retention: () => store.enforceRetention(),
  } satisfies Backend;
}

function prometheusBackend(config: Config, options: RuntimeOptions, hub: LiveHub, log: (m: string) => void) {
  const p = config.prometheus;
  if (!p) throw new ConfigError('PROMETHEUS_URL', 'required with DASHBOARD_SOURCE=prometheus');
  const api = new PrometheusClient({
    url: p.url,
    token: p.token,
    user: p.user,
    password: p.password,
    orgId: p.orgId,
    timeoutMs: p.timeoutMs,
  });
  const source = new PrometheusSource({
    api,
    staleMs: config.breakerStaleMs,
    scrapeIntervalMs: p.scrapeIntervalMs,
    now: options.now,
  });
  // Only alert rules, targets and history live in DATA_DIR in this mode.
  const db = openDatabase(config.dataDir).db;
  const receive = createRefusingOtlpReceiver(
    `this dashboard reads metrics from Prometheus (DASHBOARD_SOURCE=prometheus, ${maskPrometheusUrl(p.url)}) and does not receive OTLP: send telemetry to the collector`,
  );
  const poller = new BreakerPoller({
    source,
    hub,
    intervalMs: p.pollIntervalMs,
    tickMs: Math.max(p.pollIntervalMs, p.scrapeIntervalMs),
    log,
  });
  return { store: undefined, db, source, receive, retention: () => undefined, poller } satisfies Backend;
}

/** Wires the data source, live events and alerting from a configuration. */
export function createRuntime(config: Config, options: RuntimeOptions = {}): Runtime {
  const log = options.log ?? defaultLog;
  const hub = new LiveHub();
  const backend: Backend =
    config.source === 'prometheus'
      ? prometheusBackend(config, options, hub, log)
      : embeddedBackend(config, options, hub, log);
  const { store, source, db } = backend;
  const alertStore = new AlertStore(db, options.now, {
    maxInstances: config.limits.maxAlertInstances,
    maxHistory: config.limits.maxAlertHistory,
    resolvedKeepMs: config.limits.resolvedAlertKeepMs,
    alertmanagerStaleMs: config.limits.alertmanagerStaleMs,
  });
  const targetPolicy = createAddressPolicy(config.limits.allowedTargetNetworks);
  const alerts = new AlertService({
    store: alertStore,
    source,
    notify:
      options.notifier ??
      createNotifier({ policy: targetPolicy, attemptTimeoutMs: config.limits.targetTimeoutMs }),
    now: options.now,
    dashboardUrl: config.publicUrl,
    onChange: (changes) => hub.publish({ type: 'alert', changes }),
    log,
  });
  const now = options.now ?? Date.now;
  const timers: NodeJS.Timeout[] = [];
  let closed = false;
  return {
    config,
    store,
    source,
    alertStore,
    alerts,
    hub,
    receive: backend.receive,
    targetPolicy,
    liveConnections: new ConnectionLimit({
      max: config.limits.maxSseConnections,
      perClient: config.limits.maxSsePerClient,
    }),
    start() {
      if (timers.length > 0) return;
      const every = (ms: number, job: () => unknown) => {
        const t = setInterval(() => {
          try {
            const r = job();
            if (r instanceof Promise) r.catch((e) => log(`background job failed: ${String(e)}`));
          } catch (e) {
            log(`background job failed: ${String(e)}`);
          }
        }, ms);
        t.unref();
        timers.push(t);
      };
      every(config.retentionIntervalMs, () => {
        backend.retention();
        alertStore.prune(now() - config.retentionDays * 86_400_000);
      });
      every(config.alertEvalIntervalMs, () => alerts.evaluate());
      backend.poller?.start();
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const t of timers) clearInterval(t);
      await backend.poller?.stop();
      await alerts.idle();
      if (store) store.close();
      else if (db.open) db.close();
    },
  };
}

const KEY = Symbol.for('mcp-resilience.dashboard.runtime');
type Holder = { [KEY]?: Runtime };

/** The process-wide runtime (shared by the custom server and Next's compiled pages), created on first use. */
export function getRuntime(): Runtime {
  const g = globalThis as Holder;
  let rt = g[KEY];
  if (!rt) {
    rt = createRuntime(loadConfig());
    rt.start();
    g[KEY] = rt;
  }
  return rt;
}

export function setRuntime(rt: Runtime | undefined): void {
  (globalThis as Holder)[KEY] = rt;
}
