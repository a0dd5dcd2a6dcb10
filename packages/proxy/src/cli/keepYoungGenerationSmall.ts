/** The young generation the proxy runs with: 1 MiB semi-spaces (V8's default grows them to 16 MiB and more). */
export const youngGenerationDefaults = { flag: '--max-semi-space-size=1' } as const;

/** What {@link keepYoungGenerationSmall} found (it does not return when it re-executed the process). */
export type YoungGeneration =
  | { readonly kind: 'set'; readonly by: 'execArgv' | 'NODE_OPTIONS' }
  | { readonly kind: 'unavailable' };

/** What the re-execution needs of the process: `process` by default, injectable for tests. */
export interface ProcessLike {
  readonly execPath: string;
  readonly execArgv: readonly string[];
  readonly argv: readonly string[];
  readonly env: NodeJS.ProcessEnv;
  readonly execve?: ((file: string, args: string[], env: NodeJS.ProcessEnv) => never) | undefined;
}

/**
 * Keeps V8's young generation small in `wrap`, `connect` and `gateway`: with the default semi-space size, the
 * young generation alone costs a proxy process about 20 MB of RSS, most of its memory, for no measurable CPU
 * (its messages are small and short-lived). `v8.setFlagsFromString` cannot change the semi-space size once the
 * heap exists, so the process replaces itself (`process.execve`, Node 22.15+ and 23.11+ on POSIX) with the same
 * Node, arguments and environment plus the flag: the same process id, stdio and parent, one more Node start
 * (about 40 ms) and no second process. A semi-space size chosen by the user (on the command line or in
 * `NODE_OPTIONS`, any value) is kept. Where `execve` is missing (Windows, older Node) or the process has no script
 * path, the proxy runs as it was started. Call it before anything is read from stdin.
 */
export function keepYoungGenerationSmall(proc: ProcessLike = process): YoungGeneration {
  if (proc.execArgv.some(isSemiSpaceFlag)) return { kind: 'set', by: 'execArgv' };
  if ((proc.env.NODE_OPTIONS ?? '').split(/\s+/).some(isSemiSpaceFlag))
    return { kind: 'set', by: 'NODE_OPTIONS' };
  // Without a script path (a bundled executable), the arguments could not be given again as they came.
  if (typeof proc.execve !== 'function' || proc.argv[1] === undefined) return { kind: 'unavailable' };
  const args = [proc.execPath, youngGenerationDefaults.flag, ...proc.execArgv, ...proc.argv.slice(1)];
  return proc.execve(proc.execPath, args, proc.env);
}

function isSemiSpaceFlag(arg: string): boolean {
  return /^--max[-_]semi[-_]space[-_]size(=|$)/.test(arg);
}
