import { isIPv6 } from 'node:net';

/**
 * Who the abuse block counts failures for and blocks. A request whose key authenticated is the
 * key (its secret hash, known before authentication, so a blocked key is refused without a
 * lookup); a request with a missing or invalid key is its client address (request.ip, which
 * honours TRUST_PROXY): IPv4 as is, IPv6 by its /64, the block a single host or site usually
 * holds (one host can use any address in it).
 */
export type CallerIdentity = `key:${string}` | `ip:${string}`;

export const keyIdentity = (secretHash: string): CallerIdentity => `key:${secretHash.slice(0, 32)}`;

export function ipIdentity(ip: string): CallerIdentity {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return `ip:${mapped[1]}`;
  if (!isIPv6(ip)) return `ip:${ip}`;
  return `ip:${expandIPv6(ip).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, without leading zeros (zone id dropped). */
function expandIPv6(ip: string): string[] {
  const [head, tail = ''] = ip.split('%')[0].split('::');
  const left = head ? head.split(':') : [];
  const right = ip.includes('::') && tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right] : left;
  return groups.map((g) => (parseInt(g, 16) || 0).toString(16));
}
