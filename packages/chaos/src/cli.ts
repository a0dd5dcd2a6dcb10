#!/usr/bin/env node
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { parseCommandLine, UsageError, usage } from './commandLine.js';
import { startChaosHttpServer } from './http/startChaosHttpServer.js';
import type { FaultPlan } from './plan/FaultPlan.js';
import { loadPlan } from './plan/loadPlan.js';
import { PlanError } from './plan/PlanError.js';
import { startChaosProxy } from './proxy/startChaosProxy.js';
import { createChaosServer } from './stdio/createChaosServer.js';

async function readPlan(file: string | undefined): Promise<FaultPlan | undefined> {
  if (file === undefined) return undefined;
  try {
    return await loadPlan(file);
  } catch (error) {
    if (error instanceof PlanError) throw new UsageError(`${file}: ${error.message}`);
    throw error;
  }
}

/** A listener that cannot bind is a usage error: one line naming the flag. */
async function listening<T>(started: Promise<T>, flag: string): Promise<T> {
  try {
    return await started;
  } catch (error) {
    const { code, address, port } = error as NodeJS.ErrnoException & { address?: string; port?: number };
    if (code === 'EADDRINUSE') throw new UsageError(`${flag}: ${address}:${port} is already in use`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') {
      throw new UsageError(`${flag}: cannot listen on ${address ?? 'that host'}`);
    }
    throw error;
  }
}

async function main(argv: string[]): Promise<void> {
  const line = parseCommandLine(argv);
  if (line.command === 'help') {
    process.stdout.write(`${usage}\n`);
    return;
  }
  const options = { plan: await readPlan(line.planFile), seed: line.seed, logFile: line.logFile };

  let close: () => Promise<void>;
  if (line.command === 'proxy') {
    const { upstream, host, port } = line;
    const proxy = await listening(startChaosProxy({ ...options, upstream, host, port }), '--listen');
    process.stdout.write(`mcp-chaos proxy listening on ${proxy.url}\n`);
    close = proxy.close;
  } else if (line.transport === 'http') {
    const server = await listening(
      startChaosHttpServer({ ...options, stepMs: line.stepMs, port: line.port, protocol: line.protocol }),
      '--port',
    );
    process.stdout.write(`mcp-chaos listening on ${server.url}\n`);
    close = server.close;
  } else {
    const server = createChaosServer({ ...options, stepMs: line.stepMs, protocol: line.protocol });
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
  process.exit(error instanceof UsageError ? 2 : 1);
});
