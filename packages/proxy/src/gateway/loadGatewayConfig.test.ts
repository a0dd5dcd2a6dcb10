import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadGatewayConfig, parseGatewayConfig } from './loadGatewayConfig.js';

const parse = (json: unknown) => parseGatewayConfig(json, 'servers.json');

describe('gateway config', () => {
  it('reads the mcpServers format hosts use, with resilience and fallbacks, fallbacks first', () => {
    const config = parse({
      mcpServers: {
        files: {
          command: 'npx',
          args: ['server-filesystem', '/tmp'],
          env: { A: '1' },
          fallbacks: ['mirror'],
        },
        mirror: {
          url: 'https://mirror.example/mcp',
          headers: { Authorization: 'Bearer x' },
          resilience: { maxAttempts: 2 },
        },
      },
    });
    expect(config.servers.map((s) => s.name)).toEqual(['mirror', 'files']);
    expect(config.servers[1]).toEqual({
      name: 'files',
      spec: { kind: 'stdio', command: 'npx', args: ['server-filesystem', '/tmp'], env: { A: '1' } },
      resilience: {},
      fallbacks: ['mirror'],
    });
    expect(config.servers[0]?.resilience).toEqual({ maxAttempts: 2 });
  });

  it.each([
    [{}, 'servers.json: "mcpServers": must be an object'],
    [{ mcpServers: {} }, 'has no server'],
    [{ mcpServers: { 'a/b': { command: 'x' } } }, 'server "a/b": a name must be'],
    [{ mcpServers: { a: { command: 'x', url: 'http://y' } } }, 'server "a": needs exactly one of "command"'],
    [
      { mcpServers: { a: { command: 'x', args: [1] } } },
      'server "a", key "args": must be an array of strings',
    ],
    [
      { mcpServers: { a: { url: 'file:///x' } } },
      'server "a", key "url": must be an http:// or https:// URL',
    ],
    [{ mcpServers: { a: { command: 'x', retries: 3 } } }, 'server "a", key "retries": is not a known key'],
    [
      { mcpServers: { a: { command: 'x', resilience: { maxAttempts: '3' } } } },
      'key "resilience.maxAttempts": must be a number',
    ],
    [
      { mcpServers: { a: { command: 'x', resilience: { magic: 1 } } } },
      'key "resilience.magic": is not a known option',
    ],
    [{ mcpServers: { a: { command: 'x', fallbacks: ['b'] } } }, 'names "b", which is not in "mcpServers"'],
    [
      { mcpServers: { a: { command: 'x', fallbacks: ['b'] }, b: { command: 'y', fallbacks: ['a'] } } },
      'forms a cycle: a -> b -> a',
    ],
    [
      { mcpServers: { a: { command: 'x', roots: [] } } },
      'server "a", key "roots": must be an array of 1 to 64',
    ],
    [
      { mcpServers: { a: { command: 'x', roots: ['https://x/y'] } } },
      'server "a", key "roots": root 0: "https://x/y": only file:// roots exist',
    ],
    [
      { mcpServers: { a: { command: 'x', roots: ['/a', { uri: '/b' }] } } },
      'server "a", key "roots": root 1: "uri" must be a file:// URI',
    ],
    [
      { mcpServers: { a: { command: 'x', roots: [{ uri: 'file:///b', label: 'b' }] } } },
      'key "roots": root 0: "label" is not a known key (known: uri, name)',
    ],
  ])('refuses %j naming the file, the server and the key', (json, message) => {
    expect(() => parse(json)).toThrow(message);
  });

  it("reads a server's roots: paths (relative to the config's folder) become file:// URIs, named or not", async () => {
    const folder = mkdtempSync(join(tmpdir(), 'gw-roots-'));
    const file = join(folder, 'servers.json');
    const roots = ['/srv/projects', 'data', 'file:///mnt/shared', { uri: 'file:///home/a', name: 'home' }];
    writeFileSync(file, JSON.stringify({ mcpServers: { files: { command: 'x', roots } } }));
    const [server] = (await loadGatewayConfig(file)).servers;
    expect(server?.roots).toEqual([
      { uri: 'file:///srv/projects' },
      { uri: pathToFileURL(join(folder, 'data')).href },
      { uri: 'file:///mnt/shared' },
      { uri: 'file:///home/a', name: 'home' },
    ]);
    expect(parse({ mcpServers: { files: { command: 'x' } } }).servers[0]).not.toHaveProperty('roots');
  });

  it("reads the README's gateway config as written", () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('## gateway'));
    const json = /```json\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    const files = parseGatewayConfig(JSON.parse(json), 'README.md').servers.find((s) => s.name === 'files');
    expect(files?.roots).toEqual([{ uri: 'file:///srv/notes' }]);
  });

  it('names the file when it is not JSON', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gw-')), 'bad.json');
    writeFileSync(file, '{ nope');
    await expect(loadGatewayConfig(file)).rejects.toThrow(`${file}: not valid JSON`);
    await expect(loadGatewayConfig(`${file}.missing`)).rejects.toThrow('cannot be read');
  });
});
