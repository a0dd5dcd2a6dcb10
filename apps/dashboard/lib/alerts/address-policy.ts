import { BlockList, isIP } from 'node:net';

/*
 * Which addresses an alert target (a webhook the server POSTs to) may reach. Everything that is not a public
 * unicast address is refused: loopback, private, link-local (cloud metadata 169.254.169.254), unique-local
 * (fd00:ec2::254), CGNAT, multicast, documentation and reserved ranges, and IPv6 forms that embed an IPv4
 * address (IPv4-mapped, NAT64, 6to4) are judged by that address. Decimal, hex and octal IPv4 spellings need no
 * rule of their own: the WHATWG URL parser and the resolver turn them into dotted quads before the check.
 */

/** A refused range: its CIDR and the words the error message uses. */
const REFUSED: ReadonlyArray<readonly [string, number, 'ipv4' | 'ipv6', string]> = [
  ['0.0.0.0', 8, 'ipv4', 'unspecified ("this network")'],
  ['10.0.0.0', 8, 'ipv4', 'private'],
  ['100.64.0.0', 10, 'ipv4', 'carrier-grade NAT (shared)'],
  ['127.0.0.0', 8, 'ipv4', 'loopback'],
  ['169.254.0.0', 16, 'ipv4', 'link-local (cloud metadata)'],
  ['172.16.0.0', 12, 'ipv4', 'private'],
  ['192.0.0.0', 24, 'ipv4', 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'ipv4', 'documentation'],
  ['192.88.99.0', 24, 'ipv4', '6to4 relay anycast'],
  ['192.168.0.0', 16, 'ipv4', 'private'],
  ['198.18.0.0', 15, 'ipv4', 'benchmarking'],
  ['198.51.100.0', 24, 'ipv4', 'documentation'],
  ['203.0.113.0', 24, 'ipv4', 'documentation'],
  ['224.0.0.0', 4, 'ipv4', 'multicast'],
  ['240.0.0.0', 4, 'ipv4', 'reserved (and broadcast)'],
  ['::', 128, 'ipv6', 'unspecified'],
  ['::1', 128, 'ipv6', 'loopback'],
  ['100::', 64, 'ipv6', 'discard-only'],
  ['2001:db8::', 32, 'ipv6', 'documentation'],
  ['fc00::', 7, 'ipv6', 'unique-local (private; cloud metadata fd00:ec2::254)'],
  ['fe80::', 10, 'ipv6', 'link-local'],
  ['fec0::', 10, 'ipv6', 'site-local'],
  ['ff00::', 8, 'ipv6', 'multicast'],
];

const lists = REFUSED.map(([net, prefix, type, label]) => {
  const list = new BlockList();
  list.addSubnet(net, prefix, type);
  return { list, type, label, cidr: `${net}/${prefix}` };
});

/** An IPv4 address embedded in an IPv6 one (IPv4-mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96, 6to4 2002::/16). */
function embeddedIpv4(address: string): string | undefined {
  const words = expandIpv6(address);
  if (!words) return undefined;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  const zero = (from: number, to: number) => words.slice(from, to).every((w) => w === 0);
  if (zero(0, 5) && words[5] === 0xffff) return v4(words[6]!, words[7]!);
  if (words[0] === 0x64 && words[1] === 0xff9b && zero(2, 6)) return v4(words[6]!, words[7]!);
  if (words[0] === 0x2002) return v4(words[1]!, words[2]!);
  // IPv4-compatible ::a.b.c.d (deprecated), but not :: and ::1
  if (zero(0, 6) && (words[6]! > 0 || words[7]! > 1)) return v4(words[6]!, words[7]!);
  return undefined;
}

/** The eight 16-bit words of an IPv6 address (a dotted IPv4 tail allowed), or undefined. */
function expandIpv6(address: string): number[] | undefined {
  let a = address.toLowerCase().split('%')[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (dotted) {
    const [p, q, r, s] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    a = `${a.slice(0, -dotted[1]!.length)}${((p << 8) | q).toString(16)}:${((r << 8) | s).toString(16)}`;
  }
  const [head, tail] = a.split('::') as [string, string | undefined];
  const part = (s: string | undefined) => (s ? s.split(':').map((w) => Number.parseInt(w, 16)) : []);
  const h = part(head);
  const t = part(tail);
  if (tail === undefined && h.length !== 8) return undefined;
  const words = [...h, ...new Array<number>(8 - h.length - t.length).fill(0), ...t];
  return words.length === 8 && words.every((w) => Number.isInteger(w) && w >= 0 && w <= 0xffff)
    ? words
    : undefined;
}

/** A CIDR (`10.0.0.0/8`, `fd00::/8`) or a single address, as a BlockList; undefined when malformed. */
export function parseCidr(text: string): BlockList | undefined {
  const [address, prefixText] = text.trim().split('/') as [string, string | undefined];
  const family = isIP(address);
  if (family === 0) return undefined;
  const type = family === 4 ? 'ipv4' : 'ipv6';
  const max = family === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > max || (prefixText ?? '0').trim() === '')
    return undefined;
  const list = new BlockList();
  list.addSubnet(address, prefix, type);
  return list;
}

export type AddressVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: string; readonly range: string };

/** An allow-list of networks (`ALERT_TARGET_ALLOWED_NETWORKS`) that override the refusals. */
export interface AddressPolicy {
  check(address: string): AddressVerdict;
}

function matches(list: BlockList, address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (list.check(address, family === 4 ? 'ipv4' : 'ipv6')) return true;
  const v4 = family === 6 ? embeddedIpv4(address) : undefined;
  return v4 !== undefined && list.check(v4, 'ipv4');
}

/** The policy: refuse non-public addresses unless one of `allowed` (CIDRs or addresses) contains them. */
export function createAddressPolicy(allowed: readonly string[] = []): AddressPolicy {
  const allow = allowed.map((a) => {
    const list = parseCidr(a);
    if (!list) throw new Error(`not a CIDR or IP address: '${a}'`);
    return list;
  });
  return {
    check(address) {
      const family = isIP(address);
      if (family === 0) return { ok: false, reason: 'not an IP address', range: address };
      if (allow.some((l) => matches(l, address))) return { ok: true };
      const v4 = family === 6 ? embeddedIpv4(address) : undefined;
      for (const r of lists) {
        const hit =
          (family === 4 && r.type === 'ipv4' && r.list.check(address, 'ipv4')) ||
          (family === 6 && r.type === 'ipv6' && r.list.check(address, 'ipv6')) ||
          (v4 !== undefined && r.type === 'ipv4' && r.list.check(v4, 'ipv4'));
        if (hit) return { ok: false, reason: r.label, range: r.cidr };
      }
      return { ok: true };
    },
  };
}
