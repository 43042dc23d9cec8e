import { isIPv6 } from 'node:net';

/** An IPv6 text as its eight 16-bit groups (an embedded IPv4 tail, `::ffff:1.2.3.4`, as the last two). */
function groupsOf(address: string): number[] {
  const hex = (part: string): number[] => {
    if (!part.includes('.')) return [parseInt(part, 16)];
    const [a, b, c, d] = part.split('.').map(Number);
    return [(a << 8) | b, (c << 8) | d];
  };
  const [head, tail] = address.split('::');
  const left = head ? head.split(':').flatMap(hex) : [];
  const right = tail ? tail.split(':').flatMap(hex) : [];
  return tail === undefined ? left : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
}

/**
 * The per-address limit's key of a client address: IPv4 as it is (an IPv4-mapped IPv6 address, however
 * written, as its IPv4 one); IPv6 by its /64, the network one subscriber is given, so a client rotating
 * through the addresses of its own /64 is one client, not 2^64 of them.
 */
export function addressKey(ip: string): string {
  const address = ip.split('%')[0];
  if (!isIPv6(address)) return ip;
  const groups = groupsOf(address);
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff) {
    return [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.');
  }
  return `${groups.slice(0, 4).map((group) => group.toString(16)).join(':')}::/64`;
}
