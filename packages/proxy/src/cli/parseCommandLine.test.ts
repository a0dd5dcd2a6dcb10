import { describe, expect, it } from 'vitest';
import { parseCommandLine } from './parseCommandLine.js';

describe('parseCommandLine', () => {
  it('reads wrap: the options before --, the upstream command after it', () => {
    expect(
      parseCommandLine([
        'wrap',
        '--max-attempts',
        '2',
        '--server-name',
        'files',
        '--',
        'npx',
        'server-x',
        '--flag',
      ]),
    ).toEqual({
      kind: 'stdio',
      mode: 'wrap',
      spec: { kind: 'stdio', command: 'npx', args: ['server-x', '--flag'] },
      flags: { serverName: 'files', resilience: { maxAttempts: 2, server: 'files' } },
    });
  });

  it('reads --input-round-timeout-ms, and names it when its value is wrong', () => {
    expect(parseCommandLine(['wrap', '--input-round-timeout-ms', '500', '--', 'node', 's.js'])).toMatchObject(
      {
        flags: { inputRoundTimeoutMs: 500 },
      },
    );
    expect(parseCommandLine(['wrap', '--input-round-timeout-ms', '0', '--', 'node', 's.js'])).toEqual({
      kind: 'error',
      message: "--input-round-timeout-ms must be a positive integer, got '0'",
    });
  });

  it('reads wrap without --, as launchers that drop it pass it', () => {
    expect(parseCommandLine(['wrap', '--max-attempts=2', 'node', 'server.js', '--port', '1'])).toMatchObject({
      spec: { kind: 'stdio', command: 'node', args: ['server.js', '--port', '1'] },
      flags: { resilience: { maxAttempts: 2 } },
    });
  });

  it('reads connect with repeatable headers', () => {
    const line = parseCommandLine([
      'connect',
      '--header',
      'Authorization: Bearer abc',
      '--header=X-Key:1',
      'https://h/mcp',
    ]);
    expect(line).toMatchObject({
      kind: 'stdio',
      spec: { kind: 'http', url: 'https://h/mcp', headers: { Authorization: 'Bearer abc', 'X-Key': '1' } },
    });
  });

  it('reads gateway with defaults, and the token from MCP_RESILIENCE_TOKEN', () => {
    expect(
      parseCommandLine(['gateway', '--config', 'c.json'], { MCP_RESILIENCE_TOKEN: 'a'.repeat(20) }),
    ).toMatchObject({
      kind: 'gateway',
      config: 'c.json',
      host: '127.0.0.1',
      port: 8787,
      token: 'a'.repeat(20),
    });
  });

  it.each([
    [['wrap', '--max-attempts', '2'], 'the upstream command is missing'],
    [['wrap', '--'], 'the upstream command is missing'],
    [['wrap', '--max-attempts', 'x', '--', 'a'], "--max-attempts must be a non-negative number, got 'x'"],
    [['wrap', '--idempotency', 'maybe', '--', 'a'], '--idempotency must be one of'],
    [['wrap', '--bogus', '1', '--', 'a'], "unknown option '--bogus'"],
    [['connect', 'ftp://x'], '<url> must be an http:// or https:// URL'],
    [['connect', '--header', 'novalue', 'http://x'], "--header must be 'Name: value'"],
    [['gateway'], '--config <file> is required'],
    [['gateway', '--config', 'c', '--port', '70000'], '--port must be an integer'],
    [['gateway', '--config', 'c', '--token', 'short'], 'at least 16 characters'],
    [['serve'], "unknown mode 'serve'"],
  ])('%j is refused naming what is wrong', (argv, message) => {
    const line = parseCommandLine(argv);
    expect(line.kind).toBe('error');
    expect(line.kind === 'error' && line.message).toContain(message);
  });

  it('prints the usage for --help', () => {
    expect(parseCommandLine(['--help'])).toMatchObject({ kind: 'help' });
  });
});
