import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/**
 * The processes the demo starts, each in its own process group so that stopping it also stops what it
 * started (an agent's stdio MCP servers). Nothing is left behind: SIGTERM, then SIGKILL after a grace period,
 * and SIGKILL to whatever is left if the demo itself exits.
 */
export class ChildProcesses {
  private readonly children = new Map<string, ChildProcess>();

  constructor() {
    process.once('exit', () => {
      for (const child of this.children.values()) kill(child, 'SIGKILL');
    });
  }

  start(
    name: string,
    args: readonly string[],
    env: NodeJS.ProcessEnv,
    onLine: (line: string) => void = (line) => console.log(`[${name}] ${line}`),
  ): ChildProcess {
    const child = spawn(process.execPath, args, {
      env: { ...process.env, ...env },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.children.set(name, child);
    for (const stream of [child.stdout, child.stderr])
      if (stream) createInterface({ input: stream }).on('line', onLine);
    child.once('exit', () => this.children.delete(name));
    return child;
  }

  get pids(): number[] {
    return [...this.children.values()].map((c) => c.pid).filter((pid): pid is number => pid !== undefined);
  }

  /** Stops every process: SIGTERM to each group, SIGKILL to what is still running after `graceMs`. */
  async stopAll(graceMs = 5_000): Promise<void> {
    const running = [...this.children.values()];
    await Promise.all(
      running.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const timer = setTimeout(() => kill(child, 'SIGKILL'), graceMs);
            child.once('exit', () => {
              clearTimeout(timer);
              kill(child, 'SIGKILL'); // the rest of its group, if anything outlived it
              resolve();
            });
            kill(child, 'SIGTERM');
          }),
      ),
    );
  }
}

function kill(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}
