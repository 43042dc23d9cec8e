import { isPublicAddress, nonPublicHostReason } from './public-address.js';

describe('public addresses (SSRF guard)', () => {
  it.each(['127.0.0.1', '10.1.2.3', '172.20.0.1', '192.168.0.1', '169.254.169.254', '100.64.1.1', '0.0.0.0', '224.0.0.1', '255.255.255.255', '::1', '::', 'fe80::1', 'fd12::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '64:ff9b::a00:1', '2002:c0a8:0101::1', '2001:db8::1', 'not-an-ip'])('%s is not public', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['93.184.215.14', '8.8.8.8', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('%s is public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it('reads host names and every numeric IPv4 spelling from a URL', () => {
    for (const url of ['http://2130706433/', 'http://0x7f.1/', 'http://127.1/', 'sftp://[::1]/x', 'http://localhost./', 'https://a.localhost/', 'http://svc/', 'http://db.internal/']) {
      expect(nonPublicHostReason(url)).toBeDefined();
    }
    for (const url of ['https://hr.example.com/users.csv', 'sftp://files.example.org:2222/in/users.csv', 'http://[2606:4700:4700::1111]/']) {
      expect(nonPublicHostReason(url)).toBeUndefined();
    }
  });
});
