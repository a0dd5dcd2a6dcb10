import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseDocument } from 'yaml';

/** The repository root (this file is packages/deploy/test/support/repo.ts). */
export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../../..');

export const repoPath = (...parts: string[]): string => join(repoRoot, ...parts);

export const readText = (path: string): string => readFileSync(repoPath(path), 'utf8');

export const exists = (path: string): boolean => existsSync(repoPath(path));

/**
 * Parses a YAML file strictly: any error or warning (duplicate keys, bad indentation, tabs...) throws, naming the
 * file. `merge` turns on `<<:` merge keys, which Docker Compose supports.
 */
export function readYaml<T>(path: string, options: { merge?: boolean } = {}): T {
  const doc = parseDocument(readText(path), {
    merge: options.merge ?? false,
    prettyErrors: true,
    uniqueKeys: true,
  });
  const problems = [...doc.errors, ...doc.warnings];
  if (problems.length > 0) {
    throw new Error(`${path}: ${problems.map((p) => p.message).join('; ')}`);
  }
  return doc.toJS({ maxAliasCount: 100 }) as T;
}

/** Every file under a repository directory, as repository-relative paths with forward slashes. */
export function listFiles(dir: string): string[] {
  return readdirSync(repoPath(dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(repoRoot, join(entry.parentPath, entry.name)).split('\\').join('/'))
    .sort();
}

/**
 * Docker Compose variable interpolation: `$$` is a literal `$`; `${VAR}`, `${VAR:-default}`, `${VAR-default}`,
 * `${VAR:?message}` and `${VAR?message}` read `env` (empty by default, as on a machine with no .env file).
 */
export function interpolate(value: string, env: Record<string, string> = {}): string {
  return value.replace(
    /\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (whole, name?: string, op?: string, arg?: string, bare?: string) => {
      if (whole === '$$') return '$';
      if (bare !== undefined) return env[bare] ?? '';
      const set = name !== undefined && name in env;
      const current = name !== undefined ? env[name] : undefined;
      const usable = op?.startsWith(':') ? set && current !== '' : set;
      if (op === ':-' || op === '-') return usable ? (current ?? '') : (arg ?? '');
      if (op === ':?' || op === '?') {
        if (!usable) throw new Error(`required variable ${name} is not set: ${arg}`);
        return current ?? '';
      }
      return current ?? '';
    },
  );
}

/** `host:port` of a URL or a bare `host:port` endpoint (IPv4 or a name). */
export function hostPort(endpoint: string): { host: string; port: number } {
  const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(endpoint) ? new URL(endpoint) : new URL(`tcp://${endpoint}`);
  const port = url.port === '' ? (url.protocol === 'https:' ? 443 : 80) : Number(url.port);
  return { host: url.hostname, port };
}

// ---------------------------------------------------------------------------------------------------------------
// Shapes of the files under test (only what the tests read; the files are validated before these casts matter)
// ---------------------------------------------------------------------------------------------------------------

export interface ComposeHealthcheck {
  test?: string | string[];
  interval?: string;
  timeout?: string;
  retries?: number;
  start_period?: string;
}

export interface ComposeService {
  image?: string;
  build?: string | { context?: string; dockerfile?: string };
  command?: string | string[];
  entrypoint?: string | string[];
  environment?: Record<string, string | number | boolean | null> | string[];
  ports?: (string | number | { host_ip?: string; target?: number; published?: number })[];
  expose?: (string | number)[];
  volumes?: (string | { type: string; source?: string; target?: string; read_only?: boolean })[];
  tmpfs?: string | string[];
  healthcheck?: ComposeHealthcheck;
  depends_on?: string[] | Record<string, { condition: string }>;
  profiles?: string[];
  mem_limit?: string | number;
  user?: string;
  [key: string]: unknown;
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
  [key: string]: unknown;
}

export const loadCompose = (): ComposeFile => readYaml<ComposeFile>('docker-compose.yml', { merge: true });

/** A service's environment as a map, interpolated (list or map syntax). */
export function serviceEnv(
  service: ComposeService,
  env: Record<string, string> = {},
): Record<string, string> {
  const out: Record<string, string> = {};
  if (Array.isArray(service.environment)) {
    for (const item of service.environment) {
      const i = item.indexOf('=');
      if (i > 0) out[item.slice(0, i)] = interpolate(item.slice(i + 1), env);
    }
  } else {
    for (const [k, v] of Object.entries(service.environment ?? {}))
      out[k] = interpolate(String(v ?? ''), env);
  }
  return out;
}

/** A service's command (and entrypoint) as one interpolated string, for flag lookups. */
export function commandLine(service: ComposeService, env: Record<string, string> = {}): string {
  const part = (v: string | string[] | undefined) => (Array.isArray(v) ? v.join(' ') : (v ?? ''));
  return interpolate(`${part(service.entrypoint)} ${part(service.command)}`, env);
}

/** The value of `--name=value` (or `--name value`) in a command line; undefined when absent. */
export function flag(command: string, name: string): string | undefined {
  const m = new RegExp(`(?:^|\\s)--${name.replace(/\./g, '\\.')}(?:=|\\s+)("[^"]*"|'[^']*'|\\S*)`).exec(
    command,
  );
  if (!m) return undefined;
  return m[1]!.replace(/^["']|["']$/g, '');
}

export interface PortMapping {
  hostIp: string | undefined;
  published: number | undefined;
  target: number;
  protocol: string;
}

/** Parses a compose `ports` entry (short or long syntax). */
export function parsePort(
  entry: string | number | { host_ip?: string; target?: number; published?: number },
): PortMapping {
  if (typeof entry === 'object') {
    return { hostIp: entry.host_ip, published: entry.published, target: entry.target ?? 0, protocol: 'tcp' };
  }
  const [spec, protocol = 'tcp'] = String(entry).split('/');
  const m = /^(?:(\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-fA-F:]+\]):)?(?:(\d+)?:)?(\d+)$/.exec(spec ?? '');
  if (!m) throw new Error(`unsupported port syntax: ${entry}`);
  return {
    hostIp: m[1],
    published: m[2] === undefined ? undefined : Number(m[2]),
    target: Number(m[3]),
    protocol,
  };
}

/** A bind mount or named volume of a service (short or long syntax). */
export function parseVolume(
  entry: string | { type: string; source?: string; target?: string; read_only?: boolean },
) {
  if (typeof entry === 'object') {
    return { source: entry.source ?? '', target: entry.target ?? '', readOnly: entry.read_only === true };
  }
  const [source = '', target = '', mode = ''] = entry.split(':');
  return { source, target, readOnly: mode.split(',').includes('ro') };
}

export const isBindMount = (source: string): boolean => /^(\.{1,2}\/|\/|~)/.test(source);

export interface CollectorConfig {
  extensions?: Record<string, Record<string, unknown> | null>;
  receivers: Record<string, Record<string, unknown> | null>;
  processors?: Record<string, Record<string, unknown> | null>;
  exporters: Record<string, Record<string, unknown> | null>;
  connectors?: Record<string, Record<string, unknown> | null>;
  service: {
    extensions?: string[];
    telemetry?: {
      metrics?: { readers?: { pull?: { exporter?: { prometheus?: { host?: string; port?: number } } } }[] };
    };
    pipelines: Record<string, { receivers: string[]; processors?: string[]; exporters: string[] }>;
  };
}

export const loadCollector = (): CollectorConfig => readYaml<CollectorConfig>('otel-collector/config.yaml');

export interface PrometheusConfig {
  global?: { scrape_interval?: string; evaluation_interval?: string };
  rule_files?: string[];
  alerting?: { alertmanagers?: { static_configs?: { targets: string[] }[] }[] };
  scrape_configs: {
    job_name: string;
    honor_labels?: boolean;
    static_configs?: { targets: string[] }[];
  }[];
}

export const loadPrometheus = (): PrometheusConfig => readYaml<PrometheusConfig>('prometheus/prometheus.yml');

export interface RecordingRule {
  record: string;
  expr: string;
}

export interface AlertingRule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export type Rule = RecordingRule | AlertingRule;

export interface RuleFile {
  groups: { name: string; interval?: string; rules: Rule[] }[];
}

export const RULES_FILE = 'prometheus/rules/mcp-resilience.rules.yml';

export const loadRules = (): RuleFile => readYaml<RuleFile>(RULES_FILE);

export const isAlert = (rule: Rule): rule is AlertingRule => 'alert' in rule;

export interface RuleTestFile {
  rule_files: string[];
  evaluation_interval?: string;
  tests: {
    name?: string;
    interval: string;
    input_series: { series: string; values: string }[];
    alert_rule_test?: {
      eval_time: string;
      alertname: string;
      exp_alerts: { exp_labels?: Record<string, string>; exp_annotations?: Record<string, string> }[];
    }[];
    promql_expr_test?: {
      expr: string;
      eval_time: string;
      exp_samples: { labels: string; value: number }[];
    }[];
  }[];
}

export interface AlertmanagerConfig {
  route: { receiver: string; group_by?: string[] };
  receivers: {
    name: string;
    webhook_configs?: {
      url: string;
      send_resolved?: boolean;
      http_config?: { authorization?: { type?: string; credentials_file?: string; credentials?: string } };
    }[];
  }[];
}

export const loadAlertmanager = (): AlertmanagerConfig =>
  readYaml<AlertmanagerConfig>('alertmanager/alertmanager.yml');

// ---------------------------------------------------------------------------------------------------------------
// Dockerfiles
// ---------------------------------------------------------------------------------------------------------------

export interface DockerInstruction {
  keyword: string;
  args: string;
  line: number;
}

/** The instructions of a Dockerfile: comments dropped, `\` continuations joined. */
export function parseDockerfile(text: string): DockerInstruction[] {
  const out: DockerInstruction[] = [];
  const lines = text.split('\n');
  let current = '';
  let start = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (current === '' && /^\s*(#|$)/.test(line)) continue;
    if (current !== '' && /^\s*#/.test(line)) continue;
    if (current === '') start = i + 1;
    if (line.endsWith('\\')) {
      current += `${line.slice(0, -1)} `;
      continue;
    }
    current += line;
    const m = /^\s*([A-Za-z]+)\s+([\s\S]*)$/.exec(current);
    if (m) out.push({ keyword: m[1]!.toUpperCase(), args: m[2]!.trim(), line: start });
    current = '';
  }
  return out;
}

/** Docker's .dockerignore patterns as matchers of context-relative paths (no `!` exceptions needed here). */
export function dockerignoreMatcher(text: string): (path: string) => boolean {
  const patterns = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  if (patterns.some((p) => p.startsWith('!')))
    throw new Error('dockerignoreMatcher: `!` exceptions are not supported');
  const regexes = patterns.map((p) => {
    const body = p
      .replace(/^\/+|\/+$/g, '')
      .split('/')
      .map((seg) =>
        seg === '**'
          ? '(?:.*)'
          : seg
              .replace(/[.+^${}()|[\]\\]/g, '\\$&')
              .replace(/\*/g, '[^/]*')
              .replace(/\?/g, '[^/]'),
      )
      .join('/')
      .replace(/\(\?:\.\*\)\//g, '(?:.*/)?');
    return new RegExp(`^${body}(?:/.*)?$`);
  });
  return (path: string) => regexes.some((r) => r.test(path));
}
