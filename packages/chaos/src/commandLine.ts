import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { parseArgs } from 'node:util';
import { PROTOCOL_REVISIONS, type ProtocolRevision } from './core/ChaosCore.js';
import { splitCommand } from './proxy/splitCommand.js';
import type { HttpUpstream, StdioUpstream } from './proxy/startChaosProxy.js';

export const usage =
  'usage: mcp-chaos serve [--transport http|stdio] [--protocol 2025-11-25|2026-07-28] [--plan plan.yaml] [--port 0] [--seed 1] [--log file.jsonl] [--step-ms 100]' +
  ' | mcp-chaos proxy --upstream <url|"command args"> [--plan plan.yaml] [--listen 127.0.0.1:0] [--seed 1] [--log file.jsonl]';

/** Bad usage: the CLI prints `mcp-chaos: <message>` on one line and exits with code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

interface Common {
  planFile?: string;
  seed?: number;
  logFile?: string;
}

export type CommandLine =
  | { command: 'help' }
  | ({
      command: 'serve';
      transport: 'http' | 'stdio';
      port?: number;
      stepMs?: number;
      protocol?: ProtocolRevision;
    } & Common)
  | ({ command: 'proxy'; upstream: HttpUpstream | StdioUpstream; host: string; port: number } & Common);

/** The flags only one command takes. */
const ownFlags = {
  serve: ['transport', 'port', 'step-ms', 'protocol'],
  proxy: ['upstream', 'listen'],
} as const;

function fail(message: string): never {
  throw new UsageError(message);
}

function integer(flag: string, text: string | undefined, min: number, max: number): number | undefined {
  if (text === undefined) return undefined;
  const value = Number(text);
  if (text.trim() === '' || !Number.isInteger(value) || value < min || value > max) {
    fail(`--${flag} must be an integer in [${min}, ${max}], got "${text}"`);
  }
  return value;
}

function parse(argv: string[]) {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        transport: { type: 'string' },
        upstream: { type: 'string' },
        listen: { type: 'string' },
        plan: { type: 'string' },
        port: { type: 'string' },
        seed: { type: 'string' },
        log: { type: 'string' },
        'step-ms': { type: 'string' },
        protocol: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    // Node's messages go on with advice after the first sentence.
    fail(`${(error as Error).message.split('. ')[0]} (${usage})`);
  }
}

/** `host:port`, `[v6]:port` or a bare port; the host defaults to 127.0.0.1. */
function listenAddress(text: string | undefined): { host: string; port: number } {
  if (text === undefined) return { host: '127.0.0.1', port: 0 };
  const match = /^(?:(\[[^\]]+\]|[^:[\]]+):)?(\d+)$/.exec(text.trim());
  const port = Number(match?.[2]);
  if (!match || port > 65_535) {
    fail(`--listen must be host:port or port, the port in [0, 65535] (e.g. 127.0.0.1:8080), got "${text}"`);
  }
  return { host: match[1]?.replace(/^\[(.*)\]$/, '$1') ?? '127.0.0.1', port };
}

function upstreamOf(text: string | undefined): HttpUpstream | StdioUpstream {
  if (text === undefined || text.trim() === '') fail('proxy needs --upstream <http URL | "command args">');
  if (/^https?:\/\//i.test(text)) {
    try {
      return { url: new URL(text).href };
    } catch {
      fail(`--upstream is not a valid URL: "${text}"`);
    }
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) fail(`--upstream URL must be http or https, got "${text}"`);
  let words: string[];
  try {
    words = splitCommand(text);
  } catch (error) {
    fail(`--upstream: ${(error as Error).message} in "${text}"`);
  }
  const [command, ...args] = words;
  if (!command) fail('proxy needs --upstream <http URL | "command args">');
  if (!isCommand(command)) fail(`--upstream: command not found or not executable: "${command}"`);
  return { command, args };
}

/** Whether `command` can be spawned: an executable file, by path or on PATH. (Not checked on Windows.) */
function isCommand(command: string): boolean {
  if (process.platform === 'win32') return true;
  const executable = (file: string) => {
    try {
      accessSync(file, constants.X_OK);
      return statSync(file).isFile();
    } catch {
      return false;
    }
  };
  if (command.includes('/')) return executable(command);
  return (process.env.PATH ?? '')
    .split(delimiter)
    .some((dir) => dir !== '' && executable(join(dir, command)));
}

/** Parses and checks `mcp-chaos` arguments (not the plan file's contents). Throws a {@link UsageError}. */
export function parseCommandLine(argv: string[]): CommandLine {
  const { values, positionals } = parse(argv);
  if (values.help) return { command: 'help' };
  const [command] = positionals;
  if ((command !== 'serve' && command !== 'proxy') || positionals.length > 1) {
    fail(`unknown command "${positionals.join(' ')}" (${usage})`);
  }
  for (const [other, flags] of Object.entries(ownFlags)) {
    if (other === command) continue;
    const flag = flags.find((name) => values[name] !== undefined);
    if (flag) fail(`--${flag} is not an option of ${command} (${usage})`);
  }
  const common: Common = {
    planFile: values.plan,
    seed: integer('seed', values.seed, 0, 2 ** 32 - 1),
    logFile: values.log,
  };
  if (command === 'proxy') {
    return { command, upstream: upstreamOf(values.upstream), ...listenAddress(values.listen), ...common };
  }
  const { transport = 'http' } = values;
  if (transport !== 'http' && transport !== 'stdio') {
    fail(`--transport must be http or stdio, got "${transport}"`);
  }
  const { protocol } = values;
  if (protocol !== undefined && !(PROTOCOL_REVISIONS as readonly string[]).includes(protocol)) {
    fail(`--protocol must be ${PROTOCOL_REVISIONS.join(' or ')}, got "${protocol}"`);
  }
  return {
    command,
    transport,
    ...(protocol === undefined ? {} : { protocol: protocol as ProtocolRevision }),
    port: integer('port', values.port, 0, 65_535),
    stepMs: integer('step-ms', values['step-ms'], 0, 60_000),
    ...common,
  };
}
