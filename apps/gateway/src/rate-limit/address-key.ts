import { isIPv6 } from 'node:net';

/** Groups an IPv6 text's parts stand for: an embedded IPv4 address (`::ffff:1.2.3.4`) is two. */
const groupsOf = (parts: string[]) => parts.reduce((n, part) => n + (part.includes('.') ? 2 : 1), 0);

/**
 * The per-address limit's key of a client address: IPv4 as it is (an IPv4-mapped IPv6 address as its IPv4
 * one); IPv6 by its /64, the network one subscriber is given, so a client rotating through the addresses of
 * its own /64 is one client, not 2^64 of them.
 */
export function addressKey(ip: string): string {
  const address = ip.split('%')[0];
  if (!isIPv6(address)) return ip;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return mapped[1];
  const [head, tail] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? 0 : 8 - groupsOf(left) - groupsOf(right);
  const groups = [...left, ...Array<string>(zeros).fill('0'), ...right];
  return `${groups.slice(0, 4).map((group) => parseInt(group, 16).toString(16)).join(':')}::/64`;
}
