import { ipIdentity, keyIdentity } from './caller-identity';

describe('caller identity', () => {
  it('is the address for IPv4 (also when IPv4-mapped) and the /64 for IPv6', () => {
    expect(ipIdentity('203.0.113.9')).toBe('ip:203.0.113.9');
    expect(ipIdentity('::ffff:203.0.113.9')).toBe('ip:203.0.113.9');
    expect(ipIdentity('2001:db8:0:42:1:2:3:4')).toBe('ip:2001:db8:0:42::/64');
    expect(ipIdentity('2001:db8::42:1')).toBe('ip:2001:db8:0:0::/64');
    expect(ipIdentity('2001:0DB8:0000:0042::7%eth0')).toBe('ip:2001:db8:0:42::/64');
    expect(ipIdentity('::1')).toBe('ip:0:0:0:0::/64');
  });

  it('is a prefix of the secret hash for keys', () => {
    expect(keyIdentity('a'.repeat(64))).toBe(`key:${'a'.repeat(32)}`);
  });
});
