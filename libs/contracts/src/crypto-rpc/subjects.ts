import { RequestBilling } from '../billing/subjects';
import { CallerContext } from '../services';

/** The blockchain JSON-RPC proxy, served by the wallet service (docs/wallet.md, "JSON-RPC proxy"). */
export const CRYPTO_RPC = {
  /** The configured network slugs, sorted. */
  NETWORKS: 'wallet.query.crypto-rpc-networks.v1',
  /** What a body would cost at most (every item at its method's full price), or why it is refused. */
  QUOTE: 'wallet.query.crypto-rpc-quote.v1',
  /** Relays a body to the network's node and settles the gateway's hold with the credits charged. */
  CALL: 'wallet.cmd.crypto-rpc-call.v1',
} as const;

/** The most items a batch may hold (the reference's limit). */
export const CRYPTO_RPC_MAX_BATCH = 100;

/** One JSON-RPC 2.0 request object, as relayed to the node (`jsonrpc` always `2.0`). */
export interface JsonRpcRequestItem {
  jsonrpc: '2.0';
  method: string;
  params?: unknown[] | Record<string, unknown>;
  id: number | string;
}

/** A single request object, or a batch (1 to CRYPTO_RPC_MAX_BATCH items). */
export type JsonRpcBody = JsonRpcRequestItem | JsonRpcRequestItem[];

export interface CryptoRpcNetworksReply {
  networks: string[];
}

export interface CryptoRpcQuoteRequest {
  requestId: string;
  network: string;
  /** The body's methods, in order (one for a single request). */
  methods: string[];
  /** Whether the body is a batch: refusals then name items by index. */
  batch: boolean;
}

export interface CryptoRpcQuoteReply {
  /** The most the body can cost: every item at its method's full credits. */
  credits: number;
  /** The price of one credit: the hold and the charge are credits times this. */
  perCredit: { usd: number; diem: number };
}

export interface CryptoRpcCallRequest {
  caller: CallerContext;
  /** The gateway's hold of the quoted credits; the wallet service settles it. */
  billing?: RequestBilling;
  network: string;
  body: JsonRpcBody;
}

export interface CryptoRpcCallReply {
  /** The node's JSON-RPC answer, as it sent it. */
  body: unknown;
  /** Credits charged: each answered item at its method's credits, an item answered with an error at the error price. */
  credits: number;
  /** `credits` times the USD price of a credit, exact, at least 8 decimals. */
  costUsd: string;
}

export interface CryptoRpcRpc {
  [CRYPTO_RPC.NETWORKS]: { req: { requestId: string }; res: CryptoRpcNetworksReply };
  [CRYPTO_RPC.QUOTE]: { req: CryptoRpcQuoteRequest; res: CryptoRpcQuoteReply };
  [CRYPTO_RPC.CALL]: { req: CryptoRpcCallRequest; res: CryptoRpcCallReply };
}
