import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { HeldMessages, heldMessagesDefaults } from './HeldMessages.js';

const note = (i: number, data = ''): JSONRPCMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/message',
  params: { level: 'info', data: `${i}${data}` },
});
const bytesOf = (m: JSONRPCMessage) => Buffer.byteLength(JSON.stringify(m)) + 1;

describe('HeldMessages', () => {
  it('gives back what it holds in order, once', () => {
    const held = new HeldMessages({ server: 's', warn: () => expect.unreachable() });
    for (let i = 0; i < heldMessagesDefaults.maxMessages; i++) held.hold(note(i));
    const taken = held.take();
    expect(taken.map((m) => (m as unknown as { params: { data: string } }).params.data)).toEqual(
      Array.from({ length: heldMessagesDefaults.maxMessages }, (_, i) => String(i)),
    );
    expect(held.take()).toEqual([]);
  });

  it('drops a message beyond its bytes, says so once naming the server, and keeps the smaller ones after', () => {
    const lines: string[] = [];
    const big = note(1, 'x'.repeat(200));
    const held = new HeldMessages({
      server: 'files',
      maxBytes: bytesOf(note(0)) + 100,
      warn: (l) => lines.push(l),
    });
    held.hold(note(0));
    held.hold(big);
    held.hold(big);
    held.hold(note(2));
    expect(held.take()).toEqual([note(0), note(2)]);
    expect(lines).toEqual([
      `mcp-resilience: upstream "files" wrote more than 100 messages or ${bytesOf(note(0)) + 100} bytes before its 2026-07-28 connection started; the later ones are dropped\n`,
    ]);
  });

  it('bounds only what it holds: after a take it holds again', () => {
    const held = new HeldMessages({ server: 's', maxMessages: 1, warn: () => expect.unreachable() });
    held.hold(note(0));
    held.take();
    held.hold(note(1));
    expect(held.take()).toEqual([note(1)]);
  });
});
