#!/usr/bin/env node
import { FlagError, parseFlags } from './parseFlags.js';
import { DemoError, startDemo } from './startDemo.js';

/** `npm run demo`: starts everything, stops everything on Ctrl-C (SIGINT), SIGTERM or after `--duration`. */
async function main() {
  const options = parseFlags(process.argv.slice(2));
  const demo = await startDemo(options);
  let stopping = false;
  const stop = async (why: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`mcp-resilience demo: stopping (${why})...`);
    await demo.stop();
    console.log('mcp-resilience demo: stopped; nothing left running');
    process.exit(0);
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
  console.log('  press Ctrl-C to stop');
  if (options.durationMs !== undefined) setTimeout(() => void stop('duration reached'), options.durationMs);
}

main().catch((error) => {
  if (error instanceof FlagError || error instanceof DemoError) {
    console.error(`mcp-resilience demo: ${error.message}`);
    process.exit(2);
  }
  console.error(error);
  process.exit(1);
});
