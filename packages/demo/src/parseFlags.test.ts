import { describe, expect, it } from 'vitest';
import { demoDefaults, parseFlags } from './parseFlags.js';

describe('parseFlags', () => {
  it('defaults to the embedded dashboard on port 3000, real time, until Ctrl-C', () => {
    expect(parseFlags([])).toEqual(demoDefaults);
  });

  it('reads every flag, with or without =', () => {
    expect(
      parseFlags(['--duration', '5m', '--speed=10', '--port', '3100', '--seed', '7', '--agents', '6']),
    ).toMatchObject({
      durationMs: 300_000,
      speed: 10,
      port: 3100,
      seed: 7,
      agents: 6,
    });
    expect(parseFlags(['--duration', '90']).durationMs).toBe(90_000);
    expect(parseFlags(['--otlp-endpoint', 'http://otel-collector:4318/']).otlpEndpoint).toBe(
      'http://otel-collector:4318',
    );
  });

  it.each([
    [['--speed', '0'], '--speed must be a number from 0.1 to 100'],
    [['--port', 'http'], "--port must be an integer from 1 to 65535, got 'http'"],
    [['--duration', 'soon'], "--duration must be a duration such as 90s, 5m or 1h, got 'soon'"],
    [['--seed'], '--seed needs a value'],
    [['--verbose'], "unknown flag '--verbose'"],
  ])('rejects %j naming the flag', (argv, message) => {
    expect(() => parseFlags(argv)).toThrow(message);
  });
});
