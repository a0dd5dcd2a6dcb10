import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatWithBiome, writeBenchmarksDoc, writeReadmeHeadline } from './docsSection.js';
import { runMcpLoneAgent } from './mcp/mcpLoneAgent.js';
import { machine, measureMemory, measureOverhead } from './overhead.js';
import { describeDefaults, POLICIES, WHAT_IF } from './policies.js';
import { runQualityParallel } from './quality.js';
import { type Baseline, type DashboardResults, type Results, render } from './report.js';
import { SCENARIOS } from './scenarios.js';
import { checkTargets } from './targets.js';

const started = performance.now();
const startLoad = loadavg();
const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..', '..');
const docs = join(root, 'docs');
const chartsDir = join(docs, 'benchmarks');
const SEEDS = [1, 2, 3];
const log = (line: string) => console.log(line);
const seconds = () => ((performance.now() - started) / 1000).toFixed(1);

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error(
    'Run with `node --expose-gc --import tsx src/run.ts` (npm run bench does): the memory check needs global.gc().',
  );
  process.exit(1);
}

/** The middleware under test: its version, and whether its dist is older than its sources. */
function middlewareInfo() {
  const require = createRequire(import.meta.url);
  const pkgPath = require.resolve('@mcp-resilience/middleware/package.json');
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { version: string };
  const dist = join(dirname(pkgPath), 'dist', 'index.js');
  const newest = (dir: string): number =>
    readdirSync(dir, { withFileTypes: true }).reduce((max, e) => {
      const p = join(dir, e.name);
      if (e.isDirectory()) return Math.max(max, newest(p));
      return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')
        ? Math.max(max, statSync(p).mtimeMs)
        : max;
    }, 0);
  const distTime = existsSync(dist) ? statSync(dist).mtimeMs : 0;
  if (distTime < newest(join(dirname(pkgPath), 'src'))) {
    console.warn(
      'warning: packages/middleware/dist is older than its sources; run `npm run build -w packages/middleware` first.',
    );
  }
  return {
    version: pkg.version,
    distBuiltAt: new Date(distTime).toISOString(),
    defaults: describeDefaults(),
  };
}

function readDashboard(): DashboardResults {
  const path = join(root, 'apps', 'dashboard', 'bench-results.json');
  const shown = relative(root, path);
  if (!existsSync(path)) return { path: shown, found: false };
  const modified = statSync(path).mtime.toISOString();
  try {
    return { path: shown, found: true, modified, data: JSON.parse(readFileSync(path, 'utf8')) as unknown };
  } catch (error) {
    return {
      path: shown,
      found: true,
      modified,
      error: error instanceof Error ? error.message : String(error),
    };
  }
}

/** Formats the written files (`formatWithBiome`), warning instead of failing the run when Biome cannot. */
function formatOutputs(files: readonly string[]) {
  try {
    formatWithBiome(files);
  } catch (error) {
    console.warn(
      'warning: could not format the outputs with biome:',
      error instanceof Error ? error.message : error,
    );
  }
}

/** mcp-resilience's numbers with main's defaults (before issue #18), for the before/after table. */
function readBaseline(): Baseline | undefined {
  const path = join(chartsDir, 'baseline-main-defaults.json');
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Baseline) : undefined;
}

const middleware = middlewareInfo();

log(`[${seconds()} s] memory per endpoint (10k and 100k distinct keys)...`);
const memory = await measureMemory(gc);

const workers = Math.max(1, Math.min(2, availableParallelism()));
log(
  `[${seconds()} s] retry quality: ${SCENARIOS.length} scenarios × ${POLICIES.length + WHAT_IF.length} policies × ${SEEDS.length} seeds, ${workers} worker processes...`,
);
const quality = await runQualityParallel(SEEDS, SCENARIOS, [...POLICIES, ...WHAT_IF], workers);
const whatIfKeys = new Set(WHAT_IF.map((p) => p.key));
const cells = quality.cells.filter((c) => !whatIfKeys.has(c.policy));
const whatIfCells = quality.cells.filter((c) => whatIfKeys.has(c.policy));

log(`[${seconds()} s] the lone agent through the real MCP client (real time, about 26 s)...`);
const mcpLoneAgent = await runMcpLoneAgent().catch((error: unknown) => ({
  error: error instanceof Error ? error.message : String(error),
}));

log(`[${seconds()} s] success-path overhead...`);
const overhead = await measureOverhead();

const info = (p: { key: string; name: string; description: string }) => ({
  key: p.key,
  name: p.name,
  description: p.description,
});
const results: Results = {
  generatedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  runtimeSeconds: (performance.now() - started) / 1000,
  seeds: SEEDS,
  machine: { ...machine(), loadAverage: startLoad },
  middleware,
  quality: {
    scenarios: quality.scenarios,
    policies: POLICIES.map(info),
    cells,
    whatIf: { policies: WHAT_IF.map(info), cells: whatIfCells },
  },
  targets: checkTargets([...cells, ...whatIfCells], SCENARIOS, overhead),
  overhead,
  memory,
  dashboard: readDashboard(),
  mcpLoneAgent,
  ...(() => {
    const baseline = readBaseline();
    return baseline ? { baseline } : {};
  })(),
};

const rendered = render(results);
mkdirSync(chartsDir, { recursive: true });
writeBenchmarksDoc(rendered.markdown);
for (const [name, svg] of Object.entries(rendered.charts)) writeFileSync(join(chartsDir, name), svg);
writeFileSync(join(chartsDir, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
// The root README shows the headline of the last run, between its bench:headline markers.
const readme = writeReadmeHeadline(rendered.headline);
formatOutputs([join(docs, 'benchmarks.md'), join(chartsDir, 'results.json'), readme]);

log(`\n${rendered.headline}`);
for (const t of results.targets) {
  log(`${t.status.padEnd(17)} ${t.target}`);
  for (const r of t.results) log(`  ${r.status.padEnd(17)} ${r.scenario}: ${r.value}`);
}
log(
  `\n[${seconds()} s] wrote docs/benchmarks.md, docs/benchmarks/{${Object.keys(rendered.charts).join(',')},results.json} and the headline of README.md`,
);
await import('./agentLayerRun.js'); // the agent-layer section (docs/benchmarks/agent-layer.md)
await import('./fleetRun.js'); // the fleet section (docs/benchmarks.md §4, docs/benchmarks/fleet.json)
await import('./idleCapSweepRun.js'); // the idle probe cap's trade-off (docs/benchmarks.md §5)
await import('./loneAgentSweepRun.js'); // the lone agent across outage lengths (docs/benchmarks.md §6)
