import { createServer, connect as netConnect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { runMcpLoneAgent } from '../src/mcp/mcpLoneAgent.js';
import { TcpGate } from '../src/mcp/TcpGate.js';

/** Connects to 127.0.0.1:port, writes `text`, and resolves with the first answer, or rejects with the error code. */
function ask(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = netConnect({ host: '127.0.0.1', port });
    socket.once('error', (e: NodeJS.ErrnoException) => reject(new Error(e.code)));
    socket.once('data', (data) => {
      resolve(data.toString());
      socket.destroy();
    });
    socket.write(text);
  });
}

describe('TcpGate', () => {
  it('forwards while up, refuses while down, and forwards again on the same port', async () => {
    const echo = createServer((s) => s.on('data', (d) => s.write(`echo ${d}`)));
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    const target = (echo.address() as { port: number }).port;
    const gate = await TcpGate.open(target);
    try {
      const port = gate.port;
      expect(await ask(port, 'a')).toBe('echo a');
      await gate.down();
      expect(gate.isDown).toBe(true);
      await expect(ask(port, 'b')).rejects.toThrow('ECONNREFUSED');
      await gate.up();
      expect(gate.port).toBe(port);
      expect(await ask(port, 'c')).toBe('echo c');
    } finally {
      await gate.close();
      await new Promise((resolve) => echo.close(resolve));
    }
  });
});

describe('runMcpLoneAgent (real chaos server, real SDK client, real time)', () => {
  it('runs the four agents through an outage and counts the requests sent into it', async () => {
    const r = await runMcpLoneAgent({
      upMs: 800,
      downMs: 2_000,
      afterMs: 1_200,
      thinkMs: 200,
      timeoutMs: 1_000,
    });
    expect(r.windowMs).toBe(4_000);
    expect(r.agents.map((a) => [a.policy, a.timeoutMs])).toEqual([
      ['naive', undefined],
      ['naive', 1_000],
      ['mcp-resilience', undefined],
      ['mcp-resilience', 1_000],
    ]);
    for (const a of r.agents) {
      // the first calls, while the server answers, succeed; every agent meets the outage
      expect(a.metrics.succeeded).toBeGreaterThan(0);
      expect(a.metrics.calls + a.unfinished).toBeGreaterThan(1);
    }
    // the naive loop retries into the closed port: at least its first request there and a retry 1 s later
    for (const a of r.agents.filter((x) => x.policy === 'naive'))
      expect(a.requestsWhileDown).toBeGreaterThanOrEqual(2);
  }, 20_000);
});
