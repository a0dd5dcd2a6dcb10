import { describe, expect, it } from 'vitest';
import { splitCommand } from './splitCommand.js';

describe('splitCommand', () => {
  it.each([
    ['node server.js', ['node', 'server.js']],
    ['  npx  -y   @scope/server  ', ['npx', '-y', '@scope/server']],
    [`python -m "my server" 'a "b"' c\\ d`, ['python', '-m', 'my server', 'a "b"', 'c d']],
    [`node "say \\"hi\\"" ''`, ['node', 'say "hi"', '']],
    ['', []],
  ])('%j', (text, words) => {
    expect(splitCommand(text)).toEqual(words);
  });

  it('rejects an unterminated quote', () => {
    expect(() => splitCommand(`node 'x`)).toThrow("unterminated ' quote");
  });
});
