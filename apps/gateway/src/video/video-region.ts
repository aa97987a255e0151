import ipaddr from 'ipaddr.js';
import { VideoConstraints } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';

const inCidr = (ip: string, cidr: string): boolean => {
  try {
    const addr = ipaddr.process(ip);
    const [range, bits] = ipaddr.parseCIDR(cidr);
    return addr.kind() === range.kind() && addr.match(range, bits);
  } catch {
    return false;
  }
};

/**
 * The operator's region policy of a model (`constraints.regionBlock`): a caller whose region
 * header (set by the edge, e.g. Cloudflare's `cf-ipcountry`) names a blocked country, or whose
 * address is in a blocked range, gets a 403 StandardError.
 */
export function checkRegion(modelId: string, c: VideoConstraints, headers: Record<string, string | string[] | undefined>, ip: string): void {
  const block = c.regionBlock;
  if (!block) return;
  const raw = headers[block.header.toLowerCase()];
  const region = (Array.isArray(raw) ? raw[0] : raw)?.trim().toUpperCase();
  const blocked = (region !== undefined && block.countries.some((cc) => cc.toUpperCase() === region)) || block.cidrs.some((cidr) => inCidr(ip, cidr));
  if (blocked)
    throw new DomainError(
      ErrorCode.Forbidden,
      `The model ${modelId} is not available in your region. Using proxies or similar to get around the restriction violates the terms of service.`,
    );
}
