import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { describe, expect, it } from 'vitest';
import { JsonLineBuffer } from './JsonLineBuffer.js';

const chunk = (text: string) => Buffer.from(text, 'utf8');

describe('JsonLineBuffer', () => {
  it('reads one message per line, across chunks, with or without a carriage return', () => {
    const buffer = new JsonLineBuffer();
    buffer.append(chunk('{"jsonrpc":"2.0","id":1,"method":"ping"}\r\n{"jsonrpc":"2.0",'));
    expect(buffer.readMessage()).toEqual({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(buffer.readMessage()).toBeNull();
    buffer.append(chunk('"method":"notifications/initialized","params":{"é":"ü"}}\n'));
    expect(buffer.readMessage()).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/initialized',
      params: { é: 'ü' },
    });
    expect(buffer.readMessage()).toBeNull();
  });

  it('names what a line is when it is not a JSON object, and goes on with the next line', () => {
    const buffer = new JsonLineBuffer();
    buffer.append(chunk('[1,2]\n42\n{"jsonrpc":"2.0","id":2,"result":{}}\n'));
    expect(() => buffer.readMessage()).toThrow('not a JSON-RPC message (a JSON array): [1,2]');
    expect(() => buffer.readMessage()).toThrow('not a JSON-RPC message (a JSON number): 42');
    expect(buffer.readMessage()).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
  });

  it('refuses a line longer than its limit and forgets it', () => {
    const buffer = new JsonLineBuffer(16);
    buffer.append(chunk('{"a":"0123456'));
    expect(() => buffer.append(chunk('789abcdef"}\n'))).toThrow('exceeded maximum size of 16 bytes');
    buffer.append(chunk('{"b":1}\n'));
    expect(buffer.readMessage()).toEqual({ b: 1 });
  });

  it('replaces the read buffer of an SDK stdio transport, and refuses a transport without one', () => {
    const transport = JsonLineBuffer.install(new StdioServerTransport());
    expect((transport as unknown as { _readBuffer: unknown })._readBuffer).toBeInstanceOf(JsonLineBuffer);
    expect(() => JsonLineBuffer.install({})).toThrow('has no read buffer to replace');
  });
});
