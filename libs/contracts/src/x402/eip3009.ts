/**
 * EIP-3009 `TransferWithAuthorization` as USDC's contract hashes it (EIP-712), which an x402 "exact"
 * payment on an EVM network signs; shared by the verifier and the clients that build payments.
 */
export const TRANSFER_WITH_AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: 'from', type: 'address' },
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'validAfter', type: 'uint256' },
    { name: 'validBefore', type: 'uint256' },
    { name: 'nonce', type: 'bytes32' },
  ],
} as const;

/** The EIP-712 domain name and version of Circle's USDC v2 contract (chain id and contract address complete it). */
export const USDC_EIP712 = { name: 'USD Coin', version: '2' } as const;
