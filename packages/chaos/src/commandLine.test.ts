import { describe, expect, it } from 'vitest';
import { parseCommandLine, UsageError } from './commandLine.js';

const node = process.execPath;

describe('parseCommandLine', () => {
  it('serve: defaults and flags', () => {
    expect(parseCommandLine(['serve'])).toEqual({ command: 'serve', transport: 'http' });
    expect(
      parseCommandLine([
        'serve',
        '--transport',
        'stdio',
        '--plan',
        'p.yaml',
        '--seed',
        '3',
        '--step-ms',
        '10',
      ]),
    ).toEqual({ command: 'serve', transport: 'stdio', planFile: 'p.yaml', seed: 3, stepMs: 10 });
    expect(parseCommandLine(['--help'])).toEqual({ command: 'help' });
  });

  it('serve: --protocol 2025-11-25 or 2026-07-28, anything else named', () => {
    expect(parseCommandLine(['serve', '--protocol', '2026-07-28'])).toEqual({
      command: 'serve',
      transport: 'http',
      protocol: '2026-07-28',
    });
    expect(() => parseCommandLine(['serve', '--protocol', '2024-11-05'])).toThrow(
      '--protocol must be 2025-11-25 or 2026-07-28, got "2024-11-05"',
    );
    expect(() =>
      parseCommandLine(['proxy', '--upstream', 'http://x/mcp', '--protocol', '2026-07-28']),
    ).toThrow('--protocol is not an option of proxy');
  });

  it('proxy: an http(s) URL or a command line upstream, listening on 127.0.0.1 by default', () => {
    expect(parseCommandLine(['proxy', '--upstream', 'http://localhost:3001/mcp'])).toEqual({
      command: 'proxy',
      upstream: { url: 'http://localhost:3001/mcp' },
      host: '127.0.0.1',
      port: 0,
    });
    const line = parseCommandLine([
      'proxy',
      '--upstream',
      `"${node}" server.js --name 'my server' two\\ words`,
      '--listen',
      '127.0.0.1:8080',
      '--plan',
      'plan.yaml',
      '--seed',
      '7',
      '--log',
      'log.jsonl',
    ]);
    expect(line).toEqual({
      command: 'proxy',
      upstream: { command: node, args: ['server.js', '--name', 'my server', 'two words'] },
      host: '127.0.0.1',
      port: 8080,
      planFile: 'plan.yaml',
      seed: 7,
      logFile: 'log.jsonl',
    });
    expect(parseCommandLine(['proxy', '--upstream', 'node', '--listen', '9000'])).toMatchObject({
      upstream: { command: 'node', args: [] },
      host: '127.0.0.1',
      port: 9000,
    });
    expect(parseCommandLine(['proxy', '--upstream', 'node', '--listen', '[::1]:9000'])).toMatchObject({
      host: '::1',
      port: 9000,
    });
    expect(parseCommandLine(['proxy', '--upstream', 'node', '--listen', '0.0.0.0:9000'])).toMatchObject({
      host: '0.0.0.0',
    });
  });

  it.each([
    [['proxy'], 'proxy needs --upstream <http URL | "command args">'],
    [['proxy', '--upstream', '  '], 'proxy needs --upstream <http URL | "command args">'],
    [
      ['proxy', '--upstream', 'ws://127.0.0.1:1/mcp'],
      '--upstream URL must be http or https, got "ws://127.0.0.1:1/mcp"',
    ],
    [['proxy', '--upstream', 'http://exa mple/'], '--upstream is not a valid URL: "http://exa mple/"'],
    [['proxy', '--upstream', 'node "server.js'], '--upstream: unterminated " quote in "node "server.js"'],
    [
      ['proxy', '--upstream', 'no-such-mcp-server-xyz --stdio'],
      '--upstream: command not found or not executable: "no-such-mcp-server-xyz"',
    ],
    [
      ['proxy', '--upstream', '/nonexistent/server'],
      '--upstream: command not found or not executable: "/nonexistent/server"',
    ],
    [['proxy', '--upstream', 'node', '--listen', 'localhost'], '--listen must be host:port or port'],
    [['proxy', '--upstream', 'node', '--listen', '127.0.0.1:70000'], '--listen must be host:port or port'],
    [['proxy', '--upstream', 'node', '--listen', ':80'], '--listen must be host:port or port'],
    [
      ['proxy', '--upstream', 'node', '--seed', '1.5'],
      '--seed must be an integer in [0, 4294967295], got "1.5"',
    ],
    [['proxy', '--upstream', 'node', '--port', '1'], '--port is not an option of proxy'],
    [['proxy', '--upstream', 'node', '--transport', 'stdio'], '--transport is not an option of proxy'],
    [['serve', '--upstream', 'node'], '--upstream is not an option of serve'],
    [['serve', '--listen', '1'], '--listen is not an option of serve'],
    [['proxy', 'serve'], 'unknown command "proxy serve"'],
  ])('%j is a usage error', (argv, message) => {
    expect(() => parseCommandLine(argv)).toThrow(UsageError);
    expect(() => parseCommandLine(argv)).toThrow(message);
  });
});
