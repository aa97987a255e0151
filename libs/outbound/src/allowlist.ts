import ipaddr from 'ipaddr.js';

/**
 * The operator's exceptions to the address policy (`OUTBOUND_ALLOWLIST`): comma- or
 * space-separated host names (`intranet.example`, or `*.example` for subdomains), IP addresses
 * and CIDR ranges (`10.1.2.0/24`, `fd00::/8`). A listed host may resolve to any address; a
 * listed address or range may be reached under any name.
 */
export class Allowlist {
  private readonly hosts = new Set<string>();
  private readonly suffixes: string[] = [];
  private readonly ranges: Array<[ipaddr.IPv4 | ipaddr.IPv6, number]> = [];

  constructor(entries: readonly string[] = []) {
    for (const raw of entries) {
      const entry = raw.trim().toLowerCase();
      if (!entry) continue;
      if (entry.includes('/')) this.ranges.push(ipaddr.parseCIDR(entry));
      else if (ipaddr.isValid(entry)) {
        const ip = ipaddr.parse(entry);
        this.ranges.push([ip, ip.kind() === 'ipv4' ? 32 : 128]);
      } else if (entry.startsWith('*.')) this.suffixes.push(entry.slice(1));
      else this.hosts.add(entry);
    }
  }

  /** Throws with the bad entry named, for config validation at boot. */
  static parse(text: string | undefined): Allowlist {
    const entries = (text ?? '').split(/[\s,]+/).filter(Boolean);
    for (const entry of entries) {
      if (entry.includes('/') && !ipaddr.isValidCIDR(entry)) throw new Error(`OUTBOUND_ALLOWLIST: "${entry}" is not a valid CIDR range`);
    }
    return new Allowlist(entries);
  }

  get size(): number {
    return this.hosts.size + this.suffixes.length + this.ranges.length;
  }

  allowsHost(hostname: string): boolean {
    const host = hostname.toLowerCase().replace(/\.$/, '');
    return this.hosts.has(host) || this.suffixes.some((s) => host.endsWith(s));
  }

  allowsAddress(address: string): boolean {
    if (!ipaddr.isValid(address)) return false;
    const ip = ipaddr.parse(address);
    return this.ranges.some(([range, bits]) => range.kind() === ip.kind() && ip.match(range, bits));
  }
}
