import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { UpstreamSpec } from '../upstream/UpstreamSpec.js';
import type { GatewayConfig, GatewayServer } from './GatewayConfig.js';
import { parseRoots } from './parseRoots.js';

/** What a config may hold at most: bounded like any input. */
export const configLimits = { maxBytes: 1024 * 1024, maxServers: 64 } as const;

/** The `resilience` keys a config may set, with the JSON type of each. */
const RESILIENCE_KEYS: Readonly<Record<string, 'number' | 'string' | 'boolean'>> = {
  maxAttempts: 'number',
  timeoutMs: 'number',
  attemptTimeoutMs: 'number',
  backoffBaseMs: 'number',
  backoffFactor: 'number',
  backoffMaxMs: 'number',
  jitter: 'string',
  adaptiveBackoff: 'boolean',
  retryAfterMarginMs: 'number',
  retryAfterMaxMs: 'number',
  budgetRatio: 'number',
  budgetMinRetriesPerSecond: 'number',
  breakerConsecutiveFailures: 'number',
  breakerFailureRate: 'number',
  breakerWindowMs: 'number',
  breakerMinimumCalls: 'number',
  breakerBreakMs: 'number',
  breakerMaxBreakMs: 'number',
  breakerWait: 'boolean',
  breakerWaitLimitMs: 'number',
  idempotency: 'string',
  breakerScope: 'string',
  negativeCacheTtlMs: 'number',
};
const SERVER_KEYS = new Set([
  'command',
  'args',
  'env',
  'cwd',
  'url',
  'headers',
  'type',
  'transport',
  'resilience',
  'fallbacks',
  'roots',
]);
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** A config error: the message names the file, the server and the key. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Reads and validates a gateway config: a Claude-Desktop style `mcpServers` JSON, plus `resilience` and `fallbacks`. */
export async function loadGatewayConfig(file: string): Promise<GatewayConfig> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`${file}: cannot be read (${(error as Error).message})`);
  }
  if (Buffer.byteLength(text) > configLimits.maxBytes) {
    throw new ConfigError(`${file}: larger than ${configLimits.maxBytes} bytes`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`${file}: not valid JSON (${(error as Error).message})`);
  }
  return parseGatewayConfig(json, file);
}

/** Validates a parsed config (see {@link loadGatewayConfig}); `file` names it in errors. */
export function parseGatewayConfig(json: unknown, file: string): GatewayConfig {
  const fail = (where: string, what: string): never => {
    throw new ConfigError(`${file}: ${where}: ${what}`);
  };
  if (!isRecord(json)) fail('the top level', 'must be an object with "mcpServers"');
  const servers = (json as Record<string, unknown>).mcpServers;
  if (!isRecord(servers)) return fail('"mcpServers"', 'must be an object of servers by name');
  const entries = Object.entries(servers);
  if (entries.length === 0) fail('"mcpServers"', 'has no server');
  if (entries.length > configLimits.maxServers)
    fail('"mcpServers"', `has more than ${configLimits.maxServers} servers`);
  const parsed = entries.map(([name, entry]) => parseServer(name, entry, fail, dirname(file)));
  const names = new Set(parsed.map((s) => s.name));
  for (const server of parsed) {
    for (const fallback of server.fallbacks) {
      if (fallback === server.name)
        fail(`server "${server.name}", key "fallbacks"`, 'names the server itself');
      if (!names.has(fallback))
        fail(`server "${server.name}", key "fallbacks"`, `names "${fallback}", which is not in "mcpServers"`);
    }
  }
  return { file, servers: inDependencyOrder(parsed, fail) };
}

type Fail = (where: string, what: string) => never;

function parseServer(name: string, entry: unknown, fail: Fail, base: string): GatewayServer {
  const at = (key?: string) => (key ? `server "${name}", key "${key}"` : `server "${name}"`);
  if (!NAME.test(name))
    fail(at(), 'a name must be 1-64 letters, digits, ".", "_" or "-" (it is a URL path segment)');
  if (!isRecord(entry)) return fail(at(), 'must be an object');
  for (const key of Object.keys(entry)) if (!SERVER_KEYS.has(key)) fail(at(key), 'is not a known key');
  const hasCommand = entry.command !== undefined;
  const hasUrl = entry.url !== undefined;
  if (hasCommand === hasUrl) fail(at(), 'needs exactly one of "command" (stdio) or "url" (Streamable HTTP)');
  const spec: UpstreamSpec = hasCommand
    ? {
        kind: 'stdio',
        command: nonEmptyString(entry.command, at('command'), fail),
        args: stringArray(entry.args ?? [], at('args'), fail),
        env: stringRecord(entry.env ?? {}, at('env'), fail),
        ...(entry.cwd === undefined ? {} : { cwd: nonEmptyString(entry.cwd, at('cwd'), fail) }),
      }
    : {
        kind: 'http',
        url: httpUrl(entry.url, at('url'), fail),
        headers: stringRecord(entry.headers ?? {}, at('headers'), fail),
      };
  return {
    name,
    spec,
    resilience: parseResilience(entry.resilience ?? {}, at, fail),
    fallbacks: stringArray(entry.fallbacks ?? [], at('fallbacks'), fail),
    ...(entry.roots === undefined
      ? {}
      : { roots: parseRoots(entry.roots, base, (what) => fail(at('roots'), what)) }),
  };
}

function parseResilience(value: unknown, at: (key?: string) => string, fail: Fail): Record<string, unknown> {
  if (!isRecord(value)) return fail(at('resilience'), 'must be an object');
  for (const [key, option] of Object.entries(value)) {
    const type = RESILIENCE_KEYS[key];
    if (type === undefined)
      fail(
        at(`resilience.${key}`),
        `is not a known option (known: ${Object.keys(RESILIENCE_KEYS).join(', ')})`,
      );
    if (typeof option !== type)
      fail(at(`resilience.${key}`), `must be a ${type}, got ${JSON.stringify(option)}`);
  }
  return value;
}

/** Fallbacks first: a server is opened after the servers it falls back to. Cycles are refused. */
function inDependencyOrder(servers: readonly GatewayServer[], fail: Fail): GatewayServer[] {
  const byName = new Map(servers.map((s) => [s.name, s]));
  const ordered: GatewayServer[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (server: GatewayServer, path: readonly string[]) => {
    if (state.get(server.name) === 'done') return;
    if (state.get(server.name) === 'visiting') {
      fail(
        `server "${server.name}", key "fallbacks"`,
        `forms a cycle: ${[...path, server.name].join(' -> ')}`,
      );
    }
    state.set(server.name, 'visiting');
    for (const name of server.fallbacks) visit(byName.get(name) as GatewayServer, [...path, server.name]);
    state.set(server.name, 'done');
    ordered.push(server);
  };
  for (const server of servers) visit(server, []);
  return ordered;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function nonEmptyString(value: unknown, where: string, fail: Fail): string {
  if (typeof value !== 'string' || value === '') fail(where, 'must be a non-empty string');
  return value as string;
}

function stringArray(value: unknown, where: string, fail: Fail): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string'))
    fail(where, 'must be an array of strings');
  return value as string[];
}

function stringRecord(value: unknown, where: string, fail: Fail): Record<string, string> {
  if (!isRecord(value) || !Object.values(value).every((v) => typeof v === 'string')) {
    fail(where, 'must be an object of strings');
  }
  return value as Record<string, string>;
}

function httpUrl(value: unknown, where: string, fail: Fail): string {
  const url = nonEmptyString(value, where, fail);
  if (!/^https?:\/\//.test(url) || !URL.canParse(url))
    fail(where, `must be an http:// or https:// URL, got "${url}"`);
  return url;
}
