import { DomainError, ErrorCode, IssueLike } from '@svc/errors';
import { amountOf, formatAmount } from '@svc/pricing';
import { DEFAULT_METHOD_TIERS, denialReason } from './method-table';
import { anyMatches, mostSpecific } from './method-patterns';
import { CryptoRpcConfig, RpcFamily, RpcNetwork } from './rpc.config';

/** A body priced: the network and each item's full credits, in the body's order. */
export interface PricedBody {
  network: RpcNetwork;
  credits: number[];
}

/** Which chain family a method belongs to, from its name: `starknet_*`, `<namespace>_*` (EVM), or camelCase (Solana). */
export function familyOf(method: string): RpcFamily {
  if (method.startsWith('starknet_')) return 'starknet';
  return method.includes('_') ? 'evm' : 'solana';
}

/**
 * The proxy's networks, allow-list and prices (docs/wallet.md, "JSON-RPC proxy"): what a body may
 * call and what it costs. Credits of an item = the network's base credits x its method's tier;
 * an item the node answers with an error costs CRYPTO_RPC_ERROR_CREDITS at most.
 */
export class RpcPricer {
  private readonly tiers: Readonly<Record<string, number>>;
  private readonly perCreditUsdNano: bigint;
  readonly perCredit: { usd: number; diem: number };

  constructor(private readonly config: CryptoRpcConfig) {
    this.tiers = { ...DEFAULT_METHOD_TIERS, ...config.CRYPTO_RPC_METHOD_TIERS };
    this.perCredit = { usd: config.CRYPTO_RPC_PRICE_PER_CREDIT_USD, diem: config.CRYPTO_RPC_PRICE_PER_CREDIT_DIEM ?? config.CRYPTO_RPC_PRICE_PER_CREDIT_USD };
    this.perCreditUsdNano = amountOf(this.perCredit.usd);
  }

  /** The configured network slugs, sorted. */
  networks(): string[] {
    return Object.keys(this.config.CRYPTO_RPC_NETWORKS).sort();
  }

  /** Prices a body's methods, or refuses it (400) naming the network or every refused item. */
  price(slug: string, methods: readonly string[], batch: boolean): PricedBody {
    const network = Object.hasOwn(this.config.CRYPTO_RPC_NETWORKS, slug) ? this.config.CRYPTO_RPC_NETWORKS[slug] : undefined;
    if (!network) {
      throw new DomainError(ErrorCode.Validation, `Unsupported network "${slug}": GET /api/v1/crypto/rpc/networks lists the networks served here.`, {
        _errors: [],
        network: { _errors: [`unsupported network "${slug}"`] },
      });
    }
    const issues: IssueLike[] = [];
    methods.forEach((method, index) => {
      const why = this.refusal(method, network);
      if (why) issues.push({ path: batch ? [index, 'method'] : ['method'], message: `"${method}" is not supported: ${why}` });
    });
    if (issues.length > 0) throw DomainError.validation(issues);
    return { network, credits: methods.map((method) => network.baseCredits * this.tierOf(method)) };
  }

  /** What an item answered with a JSON-RPC error costs: the error price, never more than the method's own. */
  errorCredits(fullCredits: number): number {
    return Math.min(this.config.CRYPTO_RPC_ERROR_CREDITS, fullCredits);
  }

  /** `credits` in USD, exact, at least 8 decimals (the reference's `X-Venice-RPC-Cost-USD`). */
  costUsd(credits: number): string {
    return formatAmount(BigInt(credits) * this.perCreditUsdNano, 8);
  }

  tierOf(method: string): number {
    return mostSpecific(this.tiers, method) ?? 1;
  }

  private refusal(method: string, network: RpcNetwork): string | null {
    if (anyMatches(this.config.CRYPTO_RPC_DENIED_METHODS, method)) return denialReason(method);
    if (!anyMatches(this.config.CRYPTO_RPC_ALLOWED_METHODS, method)) return "it is not in this server's allow-list of methods";
    const family = familyOf(method);
    if (family !== network.family) return `it is a ${family} method, and ${network.slug} is a ${network.family} network`;
    return null;
  }
}
