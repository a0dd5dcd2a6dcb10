/** The demo's flags. */
export interface DemoOptions {
  /** Stop after this long (wall time); undefined: run until Ctrl-C. */
  readonly durationMs: number | undefined;
  /** Time compression of the story (the 5-minute cycle takes 5 min / speed). */
  readonly speed: number;
  readonly port: number;
  readonly seed: number;
  readonly agents: number;
  readonly naiveAgents: number;
  /** Export to this OTLP endpoint (a collector) instead of starting the embedded dashboard. */
  readonly otlpEndpoint: string | undefined;
}

export const demoDefaults: DemoOptions = {
  durationMs: undefined,
  speed: 1,
  port: 3000,
  seed: 1,
  agents: 5,
  naiveAgents: 3,
  otlpEndpoint: undefined,
};

export const usage = `usage: npm run demo -- [--duration 10m] [--speed 1] [--port 3000] [--seed 1] [--agents 5] [--naive-agents 3] [--otlp-endpoint URL]`;

export class FlagError extends Error {}

/** `90s`, `5m`, `1h`, `1500ms`, or plain seconds. */
function duration(flag: string, text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) throw new FlagError(`${flag} must be a duration such as 90s, 5m or 1h, got '${text}'`);
  const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[(match[2] ?? 's') as 'ms' | 's' | 'm' | 'h'];
  return Number(match[1]) * unit;
}

function number(flag: string, text: string, min: number, max: number, integer: boolean): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
    throw new FlagError(
      `${flag} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got '${text}'`,
    );
  }
  return value;
}

/** Parses the command line; throws a `FlagError` that names the bad flag. */
export function parseFlags(argv: readonly string[]): DemoOptions {
  const o: { -readonly [K in keyof DemoOptions]: DemoOptions[K] } = { ...demoDefaults };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split('=', 2) as [string, string | undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new FlagError(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--duration':
        o.durationMs = duration(flag, value());
        break;
      case '--speed':
        o.speed = number(flag, value(), 0.1, 100, false);
        break;
      case '--port':
        o.port = number(flag, value(), 1, 65_535, true);
        break;
      case '--seed':
        o.seed = number(flag, value(), 0, 2 ** 31, true);
        break;
      case '--agents':
        o.agents = number(flag, value(), 1, 50, true);
        break;
      case '--naive-agents':
        o.naiveAgents = number(flag, value(), 0, 50, true);
        break;
      case '--otlp-endpoint': {
        const v = value();
        if (!/^https?:\/\/[^\s]+$/.test(v))
          throw new FlagError(`--otlp-endpoint must be an http(s) URL, got '${v}'`);
        o.otlpEndpoint = v.replace(/\/+$/, '');
        break;
      }
      case '--help':
      case '-h':
        throw new FlagError(usage);
      default:
        throw new FlagError(`unknown flag '${flag}'\n${usage}`);
    }
  }
  return o;
}
