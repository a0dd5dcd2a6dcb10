import { afterEach, describe, expect, it } from 'vitest';
import { chaosStdio } from '../test-support/commands.js';
import { writesAfterRefusal } from '../test-support/writesAfterRefusal.js';
import { StdioHandover } from './StdioHandover.js';
import { transportFactory } from './transportFactory.js';
import { upstreamClient } from './upstreamClient.js';

/**
 * A real 2026-07-28-only stdio child (the chaos server on the SDK v2, `--protocol 2026-07-28`) that writes
 * `tools/list_changed` notifications (each with a `_meta.note`) right after refusing the 2025-11-25 `initialize`: opened as `Upstream.open` does (the proxy's
 * 2025-11-25 client, refused, then its 2026-07-28 client on the same child through the handover).
 */
const INFO = { name: 'handover-test', version: '1.0.0' };
const noHost = () => Promise.reject(new Error('no host in this test'));
const closing: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  await Promise.allSettled(closing.splice(0).map((c) => c.close()));
});

type Note = { method: string; params?: Record<string, unknown> };

/**
 * Opens the child both ways, then lists its tools on the 2026-07-28 client (a round trip on the same child: the
 * notifications delivered before it have reached the client's handlers); resolves with those notifications.
 */
async function openThroughHandover(written: number, handover: StdioHandover) {
  const chaos = writesAfterRefusal(chaosStdio({}), written);
  const spec = { kind: 'stdio', command: chaos.command, args: [...chaos.args, '--protocol', '2026-07-28'] };
  const legacy = upstreamClient('legacy', INFO, {}, noHost);
  const refused = legacy.connect(transportFactory(spec as never, undefined, 'legacy', handover)());
  await expect(refused).rejects.toMatchObject({ code: -32022 });
  const modern = upstreamClient('modern', INFO, {}, noHost);
  closing.push(modern);
  const seen: Note[] = [];
  modern.fallbackNotificationHandler = async (note) => {
    seen.push(note);
  };
  await modern.connect(transportFactory(spec as never, undefined, 'modern', handover)());
  const listed = (await modern.request({ method: 'tools/list' } as never, {} as never)) as {
    tools: unknown[];
  };
  expect(listed.tools.length).toBeGreaterThan(0);
  return seen;
}

const described = (notes: Note[]) =>
  notes.map((n) => `${n.method} ${(n.params?._meta as { note?: string } | undefined)?.note}`);

describe('StdioHandover', () => {
  it('delivers what the child wrote after its refusal to the 2026-07-28 client, in order', async () => {
    const seen = await openThroughHandover(3, new StdioHandover({ server: 'chaos' }));
    expect(described(seen)).toEqual(
      [0, 1, 2].map((i) => `notifications/tools/list_changed after refusal ${i}`),
    );
  });

  it('holds at most its bound, and says once on stderr, naming the server, that the rest were dropped', async () => {
    const lines: string[] = [];
    const handover = new StdioHandover({ server: 'chaos-7', maxMessages: 2, warn: (l) => lines.push(l) });
    const seen = await openThroughHandover(5, handover);
    expect(described(seen)).toEqual([0, 1].map((i) => `notifications/tools/list_changed after refusal ${i}`));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^mcp-resilience: upstream "chaos-7" wrote more than 2 messages or 1048576 bytes/,
    );
  });
});
