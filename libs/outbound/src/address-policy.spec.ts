import { refusedRange } from './address-policy';
import { Allowlist } from './allowlist';

describe('address policy', () => {
  it.each([
    ['10.1.2.3', 'a private address'],
    ['172.16.0.1', 'a private address'],
    ['192.168.1.1', 'a private address'],
    ['127.0.0.1', 'a loopback address'],
    ['127.8.9.10', 'a loopback address'],
    ['::1', 'a loopback address'],
    ['169.254.1.1', 'a link-local address'],
    ['fe80::1', 'a link-local address'],
    ['169.254.169.254', 'a cloud metadata address'],
    ['fd00:ec2::254', 'a cloud metadata address'],
    ['100.64.0.1', 'a carrier-grade NAT (CGNAT) address'],
    ['224.0.0.1', 'a multicast or broadcast address'],
    ['ff02::1', 'a multicast or broadcast address'],
    ['255.255.255.255', 'a multicast or broadcast address'],
    ['0.0.0.0', 'an unspecified address'],
    ['::', 'an unspecified address'],
    ['::ffff:127.0.0.1', 'an IPv4-mapped IPv6 address'],
    ['::ffff:8.8.8.8', 'an IPv4-mapped IPv6 address'],
    ['fc00::1', 'a private address'],
    ['64:ff9b::a00:1', 'a special-purpose address (rfc6052)'],
    ['2002:7f00:1::', 'a special-purpose address (6to4)'],
    ['192.0.2.1', 'a special-purpose address (reserved)'],
    // IPv4 carried inside IPv6: every form is refused, whatever the IPv4 address is.
    ['::ffff:7f00:1', 'an IPv4-mapped IPv6 address'],
    ['::7f00:1', 'an IPv4-compatible IPv6 address'],
    ['::a00:1', 'an IPv4-compatible IPv6 address'],
    ['::808:808', 'an IPv4-compatible IPv6 address'],
    ['::ffff:0:7f00:1', 'a special-purpose address (rfc6145)'],
    ['64:ff9b::7f00:1', 'a special-purpose address (rfc6052)'],
    ['64:ff9b::c0a8:101', 'a special-purpose address (rfc6052)'],
    ['64:ff9b::808:808', 'a special-purpose address (rfc6052)'],
    ['64:ff9b:1::a00:1', 'a special-purpose address (rfc6052)'],
    ['2002:a00:1::1', 'a special-purpose address (6to4)'],
    ['2002:c0a8:101::1', 'a special-purpose address (6to4)'],
    ['2001::7f00:1', 'a special-purpose address (teredo)'],
    // IPv6 outside global unicast (2000::/3) that ipaddr.js has no name for.
    ['4000::1', 'not a global unicast IPv6 address'],
    ['::1:0:0:1', 'not a global unicast IPv6 address'],
  ])('refuses %s as %s', (address, reason) => {
    expect(refusedRange(address)).toBe(reason);
  });

  it.each(['8.8.8.8', '93.184.216.34', '2001:4860:4860::8888', '2a00:1450:4001:80b::200e'])('allows public unicast %s', (address) => {
    expect(refusedRange(address)).toBeNull();
  });

  it.each([
    ['http://[::127.0.0.1]/', '::7f00:1'],
    ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1'],
    ['http://[64:ff9b::127.0.0.1]/', '64:ff9b::7f00:1'],
  ])('sees %s as URL parsing normalizes it (%s), and refuses it', (url, host) => {
    const hostname = new URL(url).hostname;
    expect(hostname).toBe(`[${host}]`);
    expect(refusedRange(hostname.slice(1, -1))).not.toBeNull();
  });
});

describe('Allowlist', () => {
  const list = Allowlist.parse('intranet.example, *.corp.example 10.1.2.0/24,127.0.0.1 fd00::/8');

  it('matches listed hosts, subdomain wildcards, addresses and CIDR ranges', () => {
    expect(list.size).toBe(5);
    expect(list.allowsHost('INTRANET.example.')).toBe(true);
    expect(list.allowsHost('a.b.corp.example')).toBe(true);
    expect(list.allowsHost('corp.example')).toBe(false);
    expect(list.allowsHost('other.example')).toBe(false);
    expect(list.allowsAddress('10.1.2.200')).toBe(true);
    expect(list.allowsAddress('10.1.3.1')).toBe(false);
    expect(list.allowsAddress('127.0.0.1')).toBe(true);
    expect(list.allowsAddress('127.0.0.2')).toBe(false);
    expect(list.allowsAddress('fd12::1')).toBe(true);
    expect(list.allowsAddress('not-an-ip')).toBe(false);
  });

  it('names an invalid range', () => {
    expect(() => Allowlist.parse('10.0.0.0/99')).toThrow('OUTBOUND_ALLOWLIST: "10.0.0.0/99" is not a valid CIDR range');
    expect(new Allowlist().size).toBe(0);
  });
});
