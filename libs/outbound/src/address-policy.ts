import ipaddr from 'ipaddr.js';

/** Cloud metadata endpoints, named in refusals (they are also inside the link-local and ULA ranges). */
const METADATA = new Set(['169.254.169.254', 'fd00:ec2::254', '100.100.100.200']);

/** Global unicast IPv6 (RFC 4291): ipaddr.js calls everything it has no name for `unicast`, this range included. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');

/** Why an address may not be fetched, in words for the error message; null when it is public unicast. */
export function refusedRange(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return 'not an IP address';
  }
  if (METADATA.has(parsed.toString())) return 'a cloud metadata address';
  const range = parsed.range();
  switch (range) {
    case 'unicast':
      return parsed.kind() === 'ipv6' ? refusedUnnamedV6(parsed as ipaddr.IPv6) : null;
    case 'private':
    case 'uniqueLocal':
      return 'a private address';
    case 'loopback':
      return 'a loopback address';
    case 'linkLocal':
      return 'a link-local address';
    case 'carrierGradeNat':
      return 'a carrier-grade NAT (CGNAT) address';
    case 'multicast':
    case 'broadcast':
      return 'a multicast or broadcast address';
    case 'unspecified':
      return 'an unspecified address';
    case 'ipv4Mapped':
      return 'an IPv4-mapped IPv6 address';
    default:
      // reserved, benchmarking, documentation, 6to4, Teredo, NAT64 and other special ranges
      return `a special-purpose address (${range})`;
  }
}

/**
 * IPv6 that ipaddr.js has no range name for. Only global unicast (2000::/3) is public; the
 * deprecated IPv4-compatible form (`::127.0.0.1`, which URL parsing turns into `::7f00:1`) is
 * named, since it carries an IPv4 address that some stacks still route to.
 */
function refusedUnnamedV6(parsed: ipaddr.IPv6): string | null {
  if (parsed.parts.slice(0, 6).every((part) => part === 0)) return 'an IPv4-compatible IPv6 address';
  return parsed.match(GLOBAL_UNICAST_V6) ? null : 'not a global unicast IPv6 address';
}

/** Strips the brackets of an IPv6 URL host. */
export const bareHost = (hostname: string): string => (hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname);

export const isIpLiteral = (host: string): boolean => ipaddr.isValid(bareHost(host));
