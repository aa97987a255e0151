/**
 * The built-in method tables of the JSON-RPC proxy (docs/wallet.md, "JSON-RPC proxy"). A pattern is
 * a method name, `prefix*` or `*suffix`. Operators replace the allow- and deny-lists and add tiers
 * with CRYPTO_RPC_ALLOWED_METHODS, CRYPTO_RPC_DENIED_METHODS and CRYPTO_RPC_METHOD_TIERS.
 */

const EVM = [
  'eth_*',
  'net_version',
  'net_listening',
  'net_peerCount',
  'web3_clientVersion',
  'web3_sha3',
  'trace_*',
  'arbtrace_*',
  'debug_traceTransaction',
  'debug_traceCall',
  'debug_traceBlockByNumber',
  'debug_traceBlockByHash',
  'txpool_inspect',
  'txpool_status',
  'txpool_content',
  'zks_*',
  'linea_*',
  'bor_*',
];

const STARKNET = ['starknet_*'];

const SOLANA = [
  'getAccountInfo',
  'getBalance',
  'getBlock',
  'getBlockCommitment',
  'getBlockHeight',
  'getBlockProduction',
  'getBlockTime',
  'getBlocks',
  'getBlocksWithLimit',
  'getClusterNodes',
  'getEpochInfo',
  'getEpochSchedule',
  'getFeeForMessage',
  'getFirstAvailableBlock',
  'getGenesisHash',
  'getHealth',
  'getHighestSnapshotSlot',
  'getIdentity',
  'getInflationGovernor',
  'getInflationRate',
  'getInflationReward',
  'getLargestAccounts',
  'getLatestBlockhash',
  'getLeaderSchedule',
  'getMaxRetransmitSlot',
  'getMaxShredInsertSlot',
  'getMinimumBalanceForRentExemption',
  'getMultipleAccounts',
  'getProgramAccounts',
  'getRecentPerformanceSamples',
  'getRecentPrioritizationFees',
  'getSignatureStatuses',
  'getSignaturesForAddress',
  'getSlot',
  'getSlotLeader',
  'getSlotLeaders',
  'getStakeMinimumDelegation',
  'getSupply',
  'getTokenAccountBalance',
  'getTokenAccountsByDelegate',
  'getTokenAccountsByOwner',
  'getTokenLargestAccounts',
  'getTokenSupply',
  'getTransaction',
  'getTransactionCount',
  'getVersion',
  'getVoteAccounts',
  'isBlockhashValid',
  'minimumLedgerSlot',
  'requestAirdrop',
  'sendTransaction',
  'simulateTransaction',
];

/** Methods served unless the operator sets CRYPTO_RPC_ALLOWED_METHODS. */
export const DEFAULT_ALLOWED_METHODS: readonly string[] = [...EVM, ...STARKNET, ...SOLANA];

/** Stateful filters: their state lives on one node, and a load-balanced HTTP proxy cannot pin a caller to it. */
const FILTERS = ['eth_newFilter', 'eth_newBlockFilter', 'eth_newPendingTransactionFilter', 'eth_getFilterChanges', 'eth_getFilterLogs', 'eth_uninstallFilter'];
/** WebSocket-only: this proxy speaks HTTP. */
const SUBSCRIPTIONS = ['eth_subscribe', 'eth_unsubscribe', '*Subscribe', '*Unsubscribe', 'starknet_subscribe*', 'starknet_unsubscribe'];
/** Need the node's own keys (unlocked accounts): never the operator's node's to use for callers. */
const NODE_KEYS = ['eth_accounts', 'eth_sign', 'eth_signTransaction', 'eth_signTypedData*', 'eth_sendTransaction', 'eth_coinbase'];

/** Refused even when an allow-list pattern matches them, unless the operator sets CRYPTO_RPC_DENIED_METHODS. */
export const DEFAULT_DENIED_METHODS: readonly string[] = [...FILTERS, ...SUBSCRIPTIONS, ...NODE_KEYS];

/**
 * Pricing tiers: credits of a call = the network's base credits x the method's tier (1 when no
 * pattern matches). The most specific pattern wins: an exact name, then the longest pattern.
 */
export const DEFAULT_METHOD_TIERS: Readonly<Record<string, number>> = {
  'trace_*': 2,
  'debug_*': 2,
  'arbtrace_*': 2,
  txpool_inspect: 2,
  txpool_status: 2,
  trace_replayBlockTransactions: 4,
  trace_replayTransaction: 4,
  'arbtrace_replay*': 4,
  txpool_content: 4,
  getLargestAccounts: 4,
  getSupply: 4,
};

/** Why a denied method is denied, for the 400's message. */
export function denialReason(method: string): string {
  if (FILTERS.includes(method))
    return 'stateful filter methods are not supported: filter state is pinned to one node behind a load-balanced HTTP proxy; use eth_getLogs';
  if (/subscribe$/i.test(method)) return 'subscriptions are WebSocket-only, and this proxy is HTTP-only';
  if (NODE_KEYS.includes(method) || method.startsWith('eth_signTypedData')) return "it needs the node's own keys; sign locally and send eth_sendRawTransaction";
  return "it is refused by this server's CRYPTO_RPC_DENIED_METHODS";
}
