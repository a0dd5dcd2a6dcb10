import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  ])('refuses %j naming the file, the server and the key', (json, message) => {
    expect(() => parse(json)).toThrow(message);
  });

  it('names the file when it is not JSON', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'gw-')), 'bad.json');
    writeFileSync(file, '{ nope');
    await expect(loadGatewayConfig(file)).rejects.toThrow(`${file}: not valid JSON`);
    await expect(loadGatewayConfig(`${file}.missing`)).rejects.toThrow('cannot be read');
  });
});
