import { AlertService } from './alerts/alert-service';
import { AlertStore } from './alerts/alert-store';
import { createNotifier, type Notifier } from './alerts/notifier';
import { type Config, ConfigError, loadConfig } from './config';
import { EmbeddedSource } from './data/embedded-source';
import type { MetricsSource } from './data/metrics-source';
import { LiveHub } from './live/hub';
import { createOtlpReceiver } from './otlp/receiver';
import { safeEqual } from './server/auth';
import { EmbeddedStore } from './store/embedded-store';

export interface Runtime {
  readonly config: Config;
  readonly store: EmbeddedStore;
  readonly source: MetricsSource;
  readonly alertStore: AlertStore;
  readonly alerts: AlertService;
  readonly hub: LiveHub;
  readonly receive: ReturnType<typeof createOtlpReceiver>;
  /** Starts the background jobs (retention, alert evaluation). */
  start(): void;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  readonly now?: () => number;
  readonly notifier?: Notifier;
  readonly log?: (message: string) => void;
}

const defaultLog = (message: string) => console.error(`[dashboard] ${message}`);

/** Wires the store, the data source, live events and alerting from a configuration. */
export function createRuntime(config: Config, options: RuntimeOptions = {}): Runtime {
  if (config.source === 'prometheus') {
    throw new ConfigError('DASHBOARD_SOURCE', "the 'prometheus' source is not available yet; use 'embedded'");
  }
  const log = options.log ?? defaultLog;
  const store = new EmbeddedStore({
    dataDir: config.dataDir,
    retentionMs: config.retentionDays * 86_400_000,
    maxCalls: config.maxStoredCalls,
    maxAttempts: config.maxStoredAttempts,
    now: options.now,
  });
  const source = new EmbeddedSource(store, { staleMs: config.breakerStaleMs });
  const hub = new LiveHub();
  const alertStore = new AlertStore(store.db, options.now);
  const alerts = new AlertService({
    store: alertStore,
    source,
    notify: options.notifier ?? createNotifier(),
    now: options.now,
    dashboardUrl: config.publicUrl,
    onChange: (changes) => hub.publish({ type: 'alert', changes }),
    log,
  });
  store.subscribe({
    breakers: (changed) => {
      void source.breakers({ filters: {} }).then((all) => {
        const match = (b: { server: string; tool: string | null }, c: { server: string; tool: string }) =>
          b.server === c.server && (b.tool ?? '') === c.tool;
        hub.publish({
          type: 'breaker',
          breakers: all.filter((b) => changed.some((c) => match(b, c))),
          removed: changed
            .filter((c) => !all.some((b) => match(b, c)))
            .map((c) => ({ server: c.server, tool: c.tool || null })),
        });
      });
    },
    ingested: (signal) => hub.publish({ type: 'ingest', signal }),
  });
  const receive = createOtlpReceiver({
    sink: store,
    maxBodyBytes: config.maxBodyBytes,
    maxConcurrent: config.maxConcurrentIngest,
    token: config.ingestToken,
    checkToken: (given) => safeEqual(given, config.ingestToken),
    onError: (error) => log(`ingest failed: ${(error as Error)?.stack ?? String(error)}`),
  });
  const timers: NodeJS.Timeout[] = [];
  let closed = false;
  return {
    config,
    store,
    source,
    alertStore,
    alerts,
    hub,
    receive,
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
      every(config.retentionIntervalMs, () => store.enforceRetention());
      every(config.alertEvalIntervalMs, () => alerts.evaluate());
    },
    async close() {
      if (closed) return;
      closed = true;
      for (const t of timers) clearInterval(t);
      await alerts.idle();
      store.close();
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
