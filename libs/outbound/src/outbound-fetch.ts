import { lookup as dnsLookup } from 'node:dns/promises';
import { LookupFunction } from 'node:net';
import { Agent, Dispatcher, request } from 'undici';
import { DomainError, ErrorCode } from '@svc/errors';
import { bareHost, isIpLiteral, refusedRange } from './address-policy';
import { Allowlist } from './allowlist';

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}
/** Resolves a host name to every address it has (the default: the system resolver, like `getaddrinfo`). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface OutboundLimits {
  /** Largest response body, counted while streaming; the download is aborted past it. */
  maxBytes: number;
  /** Time for the whole fetch, redirects and body included. */
  timeoutMs: number;
  /** Redirects followed (each one checked like the first URL). */
  maxRedirects: number;
}

export interface OutboundOptions {
  allowlist?: Allowlist;
  limits?: Partial<OutboundLimits>;
  /** For tests: a resolver other than the system's. */
  resolver?: Resolver;
  userAgent?: string;
}

export interface OutboundRequest {
  headers?: Record<string, string>;
  limits?: Partial<OutboundLimits>;
  signal?: AbortSignal;
}

export interface OutboundResponse {
  /** The URL that answered (after redirects). */
  url: string;
  status: number;
  headers: Record<string, string>;
  /** `content-type` without parameters, lower case ('' when absent). */
  mediaType: string;
  body: Buffer;
}

export const DEFAULT_OUTBOUND_LIMITS: OutboundLimits = { maxBytes: 5 * 1024 * 1024, timeoutMs: 10_000, maxRedirects: 5 };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));

/** A refusal or failure of an outbound fetch: a 400 whose message says what was wrong with the URL. */
export const outboundError = (message: string): DomainError => new DomainError(ErrorCode.Validation, message, { _errors: [], url: { _errors: [message] } });

/**
 * The one way the platform fetches a URL a user gave it (scraping, image and audio URLs): an SSRF
 * guard on undici.
 * - http and https only, no credentials in the URL;
 * - the host name is resolved once and every address must be public unicast (no private,
 *   loopback, link-local, CGNAT, multicast, unspecified, IPv4-mapped or other special ranges, no
 *   cloud metadata), unless the operator's allowlist names the host or the address;
 * - the connection goes to the address that was checked (a pinned `lookup`), so a second DNS
 *   answer (rebinding) cannot swap it;
 * - redirects are followed by hand, at most `maxRedirects`, each hop checked the same way;
 * - the body is streamed and the download aborted past `maxBytes`; the whole fetch has `timeoutMs`.
 * Every refusal is a DomainError 400 saying why.
 */
export class OutboundFetcher {
  private readonly allowlist: Allowlist;
  private readonly limits: OutboundLimits;
  private readonly resolver: Resolver;
  private readonly userAgent: string;

  constructor(options: OutboundOptions = {}) {
    this.allowlist = options.allowlist ?? new Allowlist();
    this.limits = { ...DEFAULT_OUTBOUND_LIMITS, ...options.limits };
    this.resolver = options.resolver ?? systemResolver;
    this.userAgent = options.userAgent ?? 'svc-outbound/1';
  }

  async fetch(url: string, options: OutboundRequest = {}): Promise<OutboundResponse> {
    const limits = { ...this.limits, ...options.limits };
    const timeout = AbortSignal.timeout(limits.timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    let current = this.parse(url);
    try {
      for (let hop = 0; ; hop++) {
        const pinned = await this.check(current);
        const res = await this.send(current, pinned, options.headers ?? {}, signal, limits.timeoutMs);
        if (REDIRECTS.has(res.statusCode) && res.headers.location) {
          res.body.resume();
          if (hop >= limits.maxRedirects) throw outboundError(`Too many redirects (more than ${limits.maxRedirects}).`);
          const location = Array.isArray(res.headers.location) ? res.headers.location[0] : res.headers.location;
          current = this.parse(new URL(location, current).toString(), 'A redirect');
          continue;
        }
        const body = await readCapped(res.body, limits.maxBytes, headerValue(res.headers['content-length']));
        const headers = Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : (v ?? '')]));
        return {
          url: current.toString(),
          status: res.statusCode,
          headers,
          mediaType: (headers['content-type'] ?? '').split(';')[0].trim().toLowerCase(),
          body,
        };
      }
    } catch (err) {
      if (err instanceof DomainError) throw err;
      if (timeout.aborted) throw outboundError(`The URL did not answer within ${limits.timeoutMs} ms.`);
      if (options.signal?.aborted) throw err;
      throw outboundError(`The URL could not be fetched (${networkReason(err)}).`);
    }
  }

  private parse(text: string, what = 'The URL'): URL {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw outboundError(`${what} is not a valid absolute URL.`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw outboundError(`${what} uses ${url.protocol.replace(/:$/, '')}; only http and https URLs can be fetched.`);
    if (url.username || url.password) throw outboundError(`${what} contains credentials; they are not allowed.`);
    return url;
  }

  /** The address to connect to, after checking every address of the host. */
  private async check(url: URL): Promise<ResolvedAddress> {
    const host = bareHost(url.hostname);
    const hostAllowed = this.allowlist.allowsHost(host);
    let addresses: ResolvedAddress[];
    if (isIpLiteral(host)) {
      addresses = [{ address: host, family: host.includes(':') ? 6 : 4 }];
    } else {
      try {
        addresses = await this.resolver(host);
      } catch {
        throw outboundError(`The host ${host} could not be resolved.`);
      }
      if (addresses.length === 0) throw outboundError(`The host ${host} could not be resolved.`);
    }
    if (!hostAllowed) {
      for (const { address } of addresses) {
        const refused = this.allowlist.allowsAddress(address) ? null : refusedRange(address);
        if (refused) throw outboundError(`The URL's host ${host} resolves to ${refused} (${address}); only public addresses can be fetched.`);
      }
    }
    return addresses[0];
  }

  private async send(
    url: URL,
    pinned: ResolvedAddress,
    headers: Record<string, string>,
    signal: AbortSignal,
    timeoutMs: number,
  ): Promise<Dispatcher.ResponseData> {
    // Every connection of this agent goes to the checked address, whatever DNS says now.
    const lookup: LookupFunction = (_hostname, options, callback) => {
      if (options?.all) (callback as unknown as (e: null, a: ResolvedAddress[]) => void)(null, [pinned]);
      else callback(null, pinned.address, pinned.family);
    };
    const agent = new Agent({ connect: { lookup, timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs, connections: 1, pipelining: 0 });
    try {
      const res = await request(url, { method: 'GET', dispatcher: agent, signal, headers: { 'user-agent': this.userAgent, accept: '*/*', ...headers } });
      res.body.once('close', () => void agent.close().catch(() => undefined));
      return res;
    } catch (err) {
      void agent.destroy().catch(() => undefined);
      throw err;
    }
  }
}

/** Stops a download; the abort error it raises has nobody to report to. */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

function headerValue(value: string | string[] | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value;
  const n = text === undefined ? NaN : Number(text);
  return Number.isFinite(n) ? n : undefined;
}

async function readCapped(body: Dispatcher.ResponseData['body'], maxBytes: number, declared: number | undefined): Promise<Buffer> {
  const tooLarge = () => outboundError(`The response is larger than ${maxBytes} bytes.`);
  if (declared !== undefined && declared > maxBytes) {
    discard(body);
    throw tooLarge();
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of body) {
    total += (chunk as Buffer).length;
    if (total > maxBytes) {
      discard(body);
      throw tooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, total);
}

function networkReason(err: unknown): string {
  const code = (err as { code?: string } | null)?.code;
  if (code === 'ECONNREFUSED') return 'connection refused';
  if (code === 'ENOTFOUND') return 'host not found';
  if (code === 'UND_ERR_CONNECT_TIMEOUT') return 'connection timed out';
  if (code === 'ECONNRESET' || code === 'UND_ERR_SOCKET') return 'connection reset';
  return code ?? 'network error';
}
