// The floor of any stdio proxy, for the bench: spawns the command after its arguments and copies each line both
// ways, parsed and re-serialised (what a proxy that reads the method must do at least). No MCP, no resilience.
import { spawn } from 'node:child_process';

const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
const lines = (source, onLine) => {
  let buffered = '';
  source.setEncoding('utf8');
  source.on('data', (chunk) => {
    buffered += chunk;
    for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
      onLine(buffered.slice(0, i));
      buffered = buffered.slice(i + 1);
    }
  });
};
lines(process.stdin, (line) => child.stdin.write(`${JSON.stringify(JSON.parse(line))}\n`));
lines(child.stdout, (line) => process.stdout.write(`${JSON.stringify(JSON.parse(line))}\n`));
process.stdin.on('end', () => child.kill());
child.on('exit', () => process.exit(0));
