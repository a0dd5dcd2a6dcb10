import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createResilience } from '@mcp-resilience/middleware';
import { afterEach, describe, expect, it } from 'vitest';
import { createAddressPolicy } from '@/lib/alerts/address-policy';
import type { NotificationTarget } from '@/lib/alerts/alert-store';
import { createNotifier } from '@/lib/alerts/notifier';
import { type Resolve, resolveTarget } from '@/lib/alerts/webhook-request';
import { firingNotification } from './support/firing-notification';

/*
 * Alert targets are URLs the server POSTs to: without care, a way to reach the metadata service or anything on
 * the private network (SSRF). Checked after DNS resolution, again at send time, with the address pinned.
 */

const servers: http.Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
});

/** A webhook on 127.0.0.1 answering each request with the next behaviour. */
async function webhook(answers: Array<number | 'hang' | 'huge' | 'redirect'> = []) {
  const received: Array<{ host: string | undefined; body: string }> = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      received.push({ host: req.headers.host, body });
      const a = answers.shift() ?? 200;
      if (a === 'hang') return;
      if (a === 'huge') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        let n = 0;
        const pump = () => {
          while (n < 1600 && res.write(chunk)) n++; // 100 MB if read to the end
          if (n < 1600 && !res.destroyed) res.once('drain', pump);
          else res.end();
        };
        pump();
        return;
      }
      if (a === 'redirect') {
        res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
        return res.end();
      }
      res.writeHead(a);
      res.end();
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, received };
}

const target = (url: string): NotificationTarget => ({
  id: 1,
  name: 'ops',
  url,
  kind: 'json',
  enabled: true,
});
const fixed =
  (...addresses: string[]): Resolve =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('alert target address policy', () => {
  const policy = createAddressPolicy();

  it.each([
    ['http://127.0.0.1/hook', /loopback/],
    ['http://127.9.9.9/hook', /loopback/],
    ['http://2130706433/hook', /127\.0\.0\.1 is a loopback/], // decimal
    ['http://0x7f000001/hook', /127\.0\.0\.1 is a loopback/], // hex
    ['http://0177.0.0.1/hook', /127\.0\.0\.1 is a loopback/], // octal
    ['http://127.1/hook', /loopback/],
    ['http://0.0.0.0/hook', /unspecified/],
    ['http://[::1]/hook', /loopback/],
    ['http://[::ffff:127.0.0.1]/hook', /loopback/], // IPv4-mapped
    ['http://[::ffff:a9fe:a9fe]/hook', /link-local/], // mapped metadata
    ['http://[64:ff9b::a9fe:a9fe]/hook', /link-local/], // NAT64 of the metadata address
    ['http://169.254.169.254/latest/meta-data/', /link-local \(cloud metadata\)/],
    ['http://[fd00:ec2::254]/latest/meta-data/', /unique-local/],
    ['http://[fe80::1]/hook', /link-local/],
    ['http://10.1.2.3/hook', /private address \(10\.0\.0\.0\/8\)/],
    ['http://172.16.5.4/hook', /private/],
    ['http://192.168.1.1/hook', /private/],
    ['http://100.64.1.1/hook', /carrier-grade NAT/],
    ['http://224.0.0.1/hook', /multicast/],
    ['ftp://example.com/hook', /scheme ftp:/],
    ['http://user:pw@example.com/hook', /credentials in the URL/],
  ])('refuses %s', async (url, reason) => {
    const r = await resolveTarget(url, policy, fixed('93.184.215.14'));
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(reason);
  });

  it('judges a name by every address it resolves to', async () => {
    const inside = await resolveTarget('https://hooks.example.com/x', policy, fixed('10.0.0.7'));
    expect(!inside.ok && inside.reason).toMatch(
      /10\.0\.0\.7 is a private address .*hooks\.example\.com resolves to 10\.0\.0\.7/,
    );
    const mixed = await resolveTarget('https://hooks.example.com/x', policy, fixed('93.184.215.14', '::1'));
    expect(mixed.ok).toBe(false);
    const fine = await resolveTarget(
      'https://hooks.example.com/x',
      policy,
      fixed('93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'),
    );
    expect(fine).toMatchObject({ ok: true, address: '93.184.215.14', family: 4 });
    const unknown = await resolveTarget('https://nowhere.invalid/x', policy, async () => {
      throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
    });
    expect(unknown).toMatchObject({ ok: false, dns: 'ENOTFOUND' });
  });

  it('lets ALERT_TARGET_ALLOWED_NETWORKS open chosen ranges only', async () => {
    const allow = createAddressPolicy(['10.0.0.0/8', '127.0.0.1']);
    expect((await resolveTarget('http://10.9.9.9/x', allow)).ok).toBe(true);
    expect((await resolveTarget('http://127.0.0.1/x', allow)).ok).toBe(true);
    expect((await resolveTarget('http://127.0.0.2/x', allow)).ok).toBe(false);
    expect((await resolveTarget('http://192.168.0.1/x', allow)).ok).toBe(false);
    expect(() => createAddressPolicy(['10.0.0.0/33'])).toThrow(/not a CIDR/);
  });
});

describe('sending to alert targets', () => {
  it('refuses at send time a name that now resolves to a loopback address (DNS rebinding), sending nothing', async () => {
    const hook = await webhook();
    // The name passed the check when the target was added; now it points at this machine.
    const notify = createNotifier({ resolve: fixed('127.0.0.1') });
    const r = await notify(target(`http://hooks.example.com:${hook.port}/x`), firingNotification);
    expect(r.ok).toBe(false);
    expect(r.detail).toMatch(/refused: 127\.0\.0\.1 is a loopback address/);
    expect(r.attempts).toBe(1); // never retried
    expect(hook.received).toHaveLength(0);
  });

  it('resolves once per send and connects to that address for every attempt (pinned)', async () => {
    const hook = await webhook([503, 200]);
    let lookups = 0;
    const notify = createNotifier({
      policy: createAddressPolicy(['127.0.0.1/32']),
      resolve: async () => {
        lookups++;
        // A rebinding resolver: the first answer is allowed, any later one would point elsewhere.
        return [{ address: lookups === 1 ? '127.0.0.1' : '169.254.169.254', family: 4 }];
      },
    });
    const r = await notify(target(`http://hooks.example.com:${hook.port}/x`), firingNotification);
    expect(r).toMatchObject({ ok: true, attempts: 2 });
    expect(lookups).toBe(1);
    expect(hook.received.map((h) => h.host)).toEqual([
      `hooks.example.com:${hook.port}`,
      `hooks.example.com:${hook.port}`,
    ]);
  });

  it('does not follow redirects, bounds the wait and reads at most a capped answer', async () => {
    const policy = createAddressPolicy(['127.0.0.1/32']);
    const once = createResilience({ maxAttempts: 1 });
    const hook = await webhook(['redirect', 'hang', 'huge']);
    const notify = createNotifier({
      policy,
      resilience: once,
      attemptTimeoutMs: 300,
      maxResponseBytes: 1024,
    });
    const url = `http://127.0.0.1:${hook.port}/x`;
    const redirected = await notify(target(url), firingNotification);
    expect(redirected.ok).toBe(false);
    expect(redirected.detail).toMatch(/after 1 attempt/);
    const hung = await notify(target(url), firingNotification);
    expect(hung.ok).toBe(false);
    expect(hung.detail).toMatch(/timeout/);
    const huge = await notify(target(url), firingNotification);
    expect(huge).toMatchObject({ ok: true, detail: 'HTTP 200' });
    expect(hook.received).toHaveLength(3);
  });
});
