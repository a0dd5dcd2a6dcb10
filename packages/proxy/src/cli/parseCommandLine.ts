import type { McpResilienceOptions } from '@mcp-resilience/middleware/mcp';
import type { CommandLine, CommonFlags } from './CommandLine.js';
import { USAGE } from './usage.js';

/** Defaults of the command line. */
export const cliDefaults = { host: '127.0.0.1', port: 8787, tokenEnv: 'MCP_RESILIENCE_TOKEN' } as const;

/** Numeric resilience flags: `--max-attempts 3` sets `maxAttempts`. */
const NUMERIC: Readonly<Record<string, keyof McpResilienceOptions>> = {
  '--max-attempts': 'maxAttempts',
  '--timeout-ms': 'timeoutMs',
  '--attempt-timeout-ms': 'attemptTimeoutMs',
  '--backoff-base-ms': 'backoffBaseMs',
  '--backoff-max-ms': 'backoffMaxMs',
  '--retry-after-max-ms': 'retryAfterMaxMs',
  '--breaker-consecutive-failures': 'breakerConsecutiveFailures',
  '--breaker-break-ms': 'breakerBreakMs',
  '--breaker-max-break-ms': 'breakerMaxBreakMs',
  '--negative-cache-ttl-ms': 'negativeCacheTtlMs',
};
const CHOICES: Readonly<Record<string, [keyof McpResilienceOptions, readonly string[]]>> = {
  '--idempotency': ['idempotency', ['annotations', 'assume-idempotent', 'never']],
  '--breaker-scope': ['breakerScope', ['server', 'tool']],
  '--breaker-wait': ['breakerWait', ['true', 'false']],
};

type Parsed = { flags: CommonFlags; rest: string[]; extra: Map<string, string[]> };

/**
 * Parses `mcp-resilience wrap|connect|gateway [options] ...`. Every error names the flag (or the argument) that
 * is wrong. `env` supplies `MCP_RESILIENCE_TOKEN` for the gateway.
 */
export function parseCommandLine(argv: readonly string[], env: NodeJS.ProcessEnv = {}): CommandLine {
  const [mode, ...args] = argv;
  if (mode === undefined || mode === '--help' || mode === '-h' || mode === 'help') {
    return { kind: 'help', text: USAGE };
  }
  if (mode !== 'wrap' && mode !== 'connect' && mode !== 'gateway') {
    return error(`unknown mode '${mode}': expected wrap, connect or gateway`);
  }
  const split = mode === 'wrap' ? splitWrap(args) : { ownEnd: args.length, start: -1 };
  const own = args.slice(0, split.ownEnd);
  const parsed = parseFlags(own, mode === 'connect' ? ['--header'] : mode === 'gateway' ? GATEWAY : []);
  if (typeof parsed === 'string') return error(parsed);
  if (mode === 'wrap') return wrap(args, split.start, parsed);
  if (mode === 'connect') return connect(parsed);
  return gateway(parsed, env);
}

const GATEWAY = ['--config', '--host', '--port', '--token', '--allowed-origin', '--allowed-host'];

/**
 * Where wrap's options end and its upstream command begins: after `--`, or (for launchers that drop `--`, like
 * the MCP Inspector) at the first argument that is neither an option nor an option's value. `start` is -1 when
 * there is no command.
 */
function splitWrap(args: readonly string[]): { ownEnd: number; start: number } {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') return { ownEnd: i, start: i + 1 < args.length ? i + 1 : -1 };
    if (!arg.startsWith('--')) return { ownEnd: i, start: i };
    if (!arg.includes('=')) i++;
  }
  return { ownEnd: args.length, start: -1 };
}

function wrap(args: readonly string[], start: number, parsed: Parsed): CommandLine {
  if (start < 0) {
    return error(
      'wrap: the upstream command is missing: mcp-resilience wrap [options] -- <command> [args...]',
    );
  }
  const [command, ...rest] = args.slice(start) as [string, ...string[]];
  return { kind: 'stdio', mode: 'wrap', spec: { kind: 'stdio', command, args: rest }, flags: parsed.flags };
}

function connect(parsed: Parsed): CommandLine {
  if (parsed.rest.length !== 1) return error('connect: exactly one <url> is expected');
  const url = parsed.rest[0] as string;
  if (!/^https?:\/\//.test(url) || !URL.canParse(url)) {
    return error(`connect: <url> must be an http:// or https:// URL, got '${url}'`);
  }
  const headers: Record<string, string> = {};
  for (const header of parsed.extra.get('--header') ?? []) {
    const colon = header.indexOf(':');
    const name = header.slice(0, colon).trim();
    if (colon <= 0 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) {
      return error(`--header must be 'Name: value', got '${header}'`);
    }
    headers[name] = header.slice(colon + 1).trim();
  }
  return { kind: 'stdio', mode: 'connect', spec: { kind: 'http', url, headers }, flags: parsed.flags };
}

function gateway(parsed: Parsed, env: NodeJS.ProcessEnv): CommandLine {
  if (parsed.rest.length > 0) return error(`gateway: unexpected argument '${parsed.rest[0]}'`);
  const last = (flag: string) => parsed.extra.get(flag)?.at(-1);
  const config = last('--config');
  if (config === undefined) return error('gateway: --config <file> is required');
  const portText = last('--port');
  const port = portText === undefined ? cliDefaults.port : Number(portText);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    return error(`--port must be an integer from 0 to 65535, got '${portText}'`);
  }
  const token = last('--token') ?? (env[cliDefaults.tokenEnv] || undefined);
  if (token !== undefined && token.length < 16) {
    return error('--token (or MCP_RESILIENCE_TOKEN) must be at least 16 characters');
  }
  return {
    kind: 'gateway',
    config,
    host: last('--host') ?? cliDefaults.host,
    port,
    ...(token === undefined ? {} : { token }),
    allowedOrigins: parsed.extra.get('--allowed-origin') ?? [],
    allowedHosts: parsed.extra.get('--allowed-host') ?? [],
    flags: parsed.flags,
  };
}

/** Reads the common flags and the mode's own (`accepted`, valued, repeatable); positional arguments in `rest`. */
function parseFlags(args: readonly string[], accepted: readonly string[]): Parsed | string {
  const resilience: Record<string, unknown> = {};
  const flags: { -readonly [K in keyof CommonFlags]: CommonFlags[K] } = { resilience };
  const rest: string[] = [];
  const extra = new Map<string, string[]>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (!arg.startsWith('--')) {
      rest.push(arg);
      continue;
    }
    const [name, inline] = arg.includes('=')
      ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)]
      : [arg, undefined];
    const value = inline ?? args[++i];
    if (value === undefined) return `${name} needs a value`;
    const numeric = NUMERIC[name];
    const choice = CHOICES[name];
    if (numeric !== undefined) {
      const n = Number(value);
      if (value.trim() === '' || !Number.isFinite(n) || n < 0)
        return `${name} must be a non-negative number, got '${value}'`;
      resilience[numeric] = n;
    } else if (choice !== undefined) {
      if (!choice[1].includes(value)) return `${name} must be one of ${choice[1].join(', ')}, got '${value}'`;
      resilience[choice[0]] = value === 'true' ? true : value === 'false' ? false : value;
    } else if (name === '--server-name') {
      flags.serverName = value;
      resilience.server = value;
    } else if (name === '--service-name') flags.serviceName = value;
    else if (name === '--request-timeout-ms') {
      const n = Number(value);
      if (!Number.isInteger(n) || n <= 0) return `${name} must be a positive integer, got '${value}'`;
      flags.requestTimeoutMs = n;
    } else if (name === '--input-round-timeout-ms') {
      const n = Number(value);
      if (!Number.isInteger(n) || n <= 0) return `${name} must be a positive integer, got '${value}'`;
      flags.inputRoundTimeoutMs = n;
    } else if (accepted.includes(name)) extra.set(name, [...(extra.get(name) ?? []), value]);
    else return `unknown option '${name}' (see mcp-resilience --help)`;
  }
  return { flags, rest, extra };
}

const error = (message: string): CommandLine => ({ kind: 'error', message });
