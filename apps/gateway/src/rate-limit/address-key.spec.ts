import { addressKey } from './address-key.js';

describe('addressKey', () => {
  it('keeps IPv4 addresses, and reads an IPv4-mapped IPv6 address as its IPv4 one', () => {
    expect(addressKey('203.0.113.9')).toBe('203.0.113.9');
    expect(addressKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(addressKey('::FFFF:203.0.113.9')).toBe('203.0.113.9');
    for (const ip of ['0:0:0:0:0:ffff:203.0.113.9', '::ffff:cb00:7109', '0000:0000:0000:0000:0000:FFFF:CB00:7109']) expect([ip, addressKey(ip)]).toEqual([ip, '203.0.113.9']);
  });

  it('keys IPv6 addresses by their /64, however they are written', () => {
    const key = '2001:db8:aa:bb::/64';
    for (const ip of ['2001:db8:aa:bb::1', '2001:db8:aa:bb:ffff:ffff:ffff:ffff', '2001:0db8:00aa:00bb:0:0:0:1', '2001:db8:aa:bb::1.2.3.4', 'fe80::1%eth0'.replace('fe80::1', '2001:db8:aa:bb::9')]) {
      expect([ip, addressKey(ip)]).toEqual([ip, key]);
    }
    expect(addressKey('2001:db8:aa:bc::1')).not.toBe(key);
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    // Not mapped (the deprecated IPv4-compatible form): an IPv6 address of the /64 it names.
    expect(addressKey('::1.2.3.4')).toBe('0:0:0:0::/64');
    expect(addressKey('2001:db8::')).toBe('2001:db8:0:0::/64');
  });

  it('leaves anything else as it is', () => {
    expect(addressKey('not an address')).toBe('not an address');
  });
});
