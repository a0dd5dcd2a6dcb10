#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { startChaosHttpServer } from './http/startChaosHttpServer.js';
import type { FaultPlan } from './plan/FaultPlan.js';
import { loadPlan } from './plan/loadPlan.js';
import { PlanError } from './plan/PlanError.js';
import { createChaosServer } from './stdio/createChaosServer.js';

const usage =
  'usage: mcp-chaos serve [--transport http|stdio] [--plan plan.yaml] [--port 0] [--seed 1] [--log file.jsonl] [--step-ms 100]';

/** Bad usage: one line on stderr, exit code 2. */
function fail(message: string): never {
  process.stderr.write(`mcp-chaos: ${message}\n`);
  process.exit(2);
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
        transport: { type: 'string', default: 'http' },
        plan: { type: 'string' },
        port: { type: 'string' },
        seed: { type: 'string' },
        log: { type: 'string' },
        'step-ms': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    // Node's messages go on with advice after the first sentence.
    fail(`${(error as Error).message.split('. ')[0]} (${usage})`);
  }
}

async function readPlan(file: string | undefined): Promise<FaultPlan | undefined> {
  if (file === undefined) return undefined;
  try {
    return await loadPlan(file);
  } catch (error) {
    if (error instanceof PlanError) fail(`${file}: ${error.message}`);
    throw error;
  }
}

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parse(argv);
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    return;
  }
  if (positionals[0] !== 'serve' || positionals.length > 1) {
    fail(`unknown command "${positionals.join(' ')}" (${usage})`);
  }
  const { transport } = values;
  if (transport !== 'http' && transport !== 'stdio')
    fail(`--transport must be http or stdio, got "${transport}"`);
  const port = integer('port', values.port, 0, 65_535);
  const options = {
    plan: await readPlan(values.plan),
    seed: integer('seed', values.seed, 0, 2 ** 32 - 1),
    stepMs: integer('step-ms', values['step-ms'], 0, 60_000),
    logFile: values.log,
  };

  let close: () => Promise<void>;
  if (transport === 'http') {
    const server = await startChaosHttpServer({ ...options, port });
    process.stdout.write(`mcp-chaos listening on ${server.url}\n`);
    close = server.close;
  } else {
    const server = createChaosServer(options);
    await server.connect(new StdioServerTransport());
    process.stdin.once('end', () => void shutdown());
    close = server.close;
  }
  async function shutdown() {
    await close();
    process.exit(0);
  }
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
}

main(process.argv.slice(2)).catch((error: Error) => {
  process.stderr.write(`mcp-chaos: ${error.message}\n`);
  process.exit(1);
});
