// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are Docker Compose interpolation syntax
import { describe, expect, it } from 'vitest';
import {
  dockerignoreMatcher,
  flag,
  hostPort,
  interpolate,
  parseDockerfile,
  parsePort,
} from './support/repo.js';

// The helpers the other tests rely on: if they were wrong, those tests could pass vacuously.
describe('test helpers', () => {
  it('interpolates like Docker Compose', () => {
    expect(interpolate('a ${X:-dflt} b')).toBe('a dflt b');
    expect(interpolate('${X:-dflt}', { X: '' })).toBe('dflt');
    expect(interpolate('${X-dflt}', { X: '' })).toBe('');
    expect(interpolate('${X:-dflt}', { X: 'set' })).toBe('set');
    expect(interpolate('${X}')).toBe('');
    expect(interpolate('$$HOME and $${X}')).toBe('$HOME and ${X}');
    expect(() => interpolate('${X:?needed}')).toThrow(/needed/);
  });

  it('parses ports, endpoints and flags', () => {
    expect(parsePort('127.0.0.1:3000:3000')).toEqual({
      hostIp: '127.0.0.1',
      published: 3000,
      target: 3000,
      protocol: 'tcp',
    });
    expect(parsePort('3000:3000')).toEqual({
      hostIp: undefined,
      published: 3000,
      target: 3000,
      protocol: 'tcp',
    });
    expect(parsePort('4317/udp')).toEqual({
      hostIp: undefined,
      published: undefined,
      target: 4317,
      protocol: 'udp',
    });
    expect(hostPort('http://dashboard:3000/api')).toEqual({ host: 'dashboard', port: 3000 });
    expect(hostPort('0.0.0.0:4318')).toEqual({ host: '0.0.0.0', port: 4318 });
    expect(flag('x --config.file=/a/b.yml --web.listen-address 0.0.0.0:9093', 'config.file')).toBe(
      '/a/b.yml',
    );
    expect(flag('x --web.listen-address 0.0.0.0:9093', 'web.listen-address')).toBe('0.0.0.0:9093');
    expect(flag('x --web.external-url="http://h:1" y', 'web.external-url')).toBe('http://h:1');
    expect(flag('x --cluster.listen-address=', 'cluster.listen-address')).toBe('');
    expect(flag('x', 'absent')).toBeUndefined();
  });

  it('parses Dockerfile instructions with continuations and comments', () => {
    const instructions = parseDockerfile(
      '# c\nFROM a:1 AS b\nRUN x \\\n  # inner comment\n  && y\n\nCMD ["z"]\n',
    );
    expect(instructions.map((i) => [i.keyword, i.args])).toEqual([
      ['FROM', 'a:1 AS b'],
      ['RUN', 'x    && y'],
      ['CMD', '["z"]'],
    ]);
  });

  it('matches .dockerignore patterns', () => {
    const ignored = dockerignoreMatcher('**/node_modules\n.env\n**/.env.*\ndata\napps/x/data\n# comment\n');
    expect(ignored('node_modules/a/b.js')).toBe(true);
    expect(ignored('apps/x/node_modules/a.js')).toBe(true);
    expect(ignored('.env')).toBe(true);
    expect(ignored('apps/x/.env.local')).toBe(true);
    expect(ignored('data/store.db')).toBe(true);
    expect(ignored('apps/x/data/store.db')).toBe(true);
    expect(ignored('apps/x/lib/data/types.ts')).toBe(false);
    expect(ignored('docker/assemble-dashboard.mjs')).toBe(false);
  });
});
