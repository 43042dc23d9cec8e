import { BlockList, isIP } from 'node:net';
import { ValidateBy, type ValidationOptions } from 'class-validator';

/**
 * Addresses that are not on the public internet: loopback, private, link-local (cloud metadata at
 * 169.254.169.254), carrier-grade NAT, multicast, documentation and reserved ranges. A URL the system
 * fetches on a client's behalf (an import's `csv_url`) must not point at any of them (server-side request
 * forgery). IPv4 inside IPv6 (mapped, NAT64, 6to4) is checked as the IPv4 address it carries.
 */
const NON_PUBLIC = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) NON_PUBLIC.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of [
  ['::', 127], ['100::', 64], ['2001::', 23], ['2001:db8::', 32], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) NON_PUBLIC.addSubnet(network, prefix, 'ipv6');

/** The IPv4 address an IPv6 one carries (`::ffff:a.b.c.d`, `64:ff9b::/96`, `2002:AABB:CCDD::/16`), if any. */
function embeddedIpv4(ipv6: string): string | undefined {
  const groups = expandIpv6(ipv6);
  if (!groups) return undefined;
  const v4 = (high: number, low: number) => `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  const zeros = (from: number, to: number) => groups.slice(from, to).every((g) => g === 0);
  if (zeros(0, 5) && groups[5] === 0xffff) return v4(groups[6], groups[7]);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zeros(2, 6)) return v4(groups[6], groups[7]);
  if (groups[0] === 0x2002) return v4(groups[1], groups[2]);
  return undefined;
}

/** Eight 16-bit groups of an IPv6 address (dotted IPv4 tail included). */
function expandIpv6(address: string): number[] | undefined {
  let text = address.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const part = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : []);
  const left = part(head);
  const right = part(tail);
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill(0), ...right];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : undefined;
}

/** True for an IP address on the public internet; false for any other address, or for text that is no IP. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !NON_PUBLIC.check(address, 'ipv4');
  if (family !== 6) return false;
  const inner = embeddedIpv4(address);
  if (inner !== undefined) return isPublicAddress(inner);
  return !NON_PUBLIC.check(address, 'ipv6');
}

/** Names that resolve to the machine itself or to a private network by convention. */
const LOCAL_NAME = /(^|\.)(localhost|local|localdomain|internal|intranet|lan|home\.arpa|corp|private)$/i;

/**
 * Why a URL's host cannot be fetched on a client's behalf, or undefined when it may be: an IP literal must
 * be public, a name must have a dot (a single label is a cluster-internal service name) and no local suffix.
 * This settles what can be known from the text; the fetch must still check the addresses the name resolves
 * to (DNS can point a public-looking name at 127.0.0.1), with `isPublicAddress`.
 */
export function nonPublicHostReason(url: string): string | undefined {
  let host: string;
  try {
    // Parsed as http: so every numeric IPv4 form (2130706433, 0x7f.1, 127.1) is normalised, whatever the scheme.
    const parsed = new URL(url);
    host = new URL(`http://${parsed.host}`).hostname;
  } catch {
    return 'is not a URL';
  }
  const literal = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  if (isIP(literal)) return isPublicAddress(literal) ? undefined : `points at ${literal}, which is not a public internet address`;
  const name = literal.replace(/\.$/, '');
  if (!name.includes('.') || LOCAL_NAME.test(name)) return `names the host ${name}, which is not a public internet host name`;
  if (/^[0-9.]+$/.test(name) || /\.\d+$/.test(name)) return `names the host ${name}, which is not a valid host name`;
  return undefined;
}

/** class-validator: a URL whose host is public (see nonPublicHostReason); other checks (scheme, form) are IsUrl's. */
export const IsPublicHostUrl = (options?: ValidationOptions) =>
  ValidateBy(
    {
      name: 'isPublicHostUrl',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || nonPublicHostReason(value) === undefined,
        defaultMessage: (args) => `$property ${typeof args?.value === 'string' ? nonPublicHostReason(args.value) : 'must be a URL'}`,
      },
    },
    options,
  );
