import { randomBytes } from 'node:crypto';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { TRANSFER_WITH_AUTHORIZATION_TYPES, USDC_EIP712, X402PaymentRequirements } from '@svc/contracts';
import { encodeHeader } from './siwx-headers';

/** Test doubles of what an x402 client builds: real EIP-3009 signatures from throwaway viem accounts. */
export const BASE_PAY_TO = '0x1111111111111111111111111111111111111111';
export const BASE_USDC = '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913';
export const BASE = 'eip155:8453';

export const baseRequirements = (over: Partial<X402PaymentRequirements> = {}): X402PaymentRequirements => ({
  scheme: 'exact',
  network: BASE,
  amount: '5000000',
  asset: BASE_USDC,
  payTo: BASE_PAY_TO,
  maxTimeoutSeconds: 300,
  extra: { name: 'USD Coin', version: '2' },
  ...over,
});

export interface EvmPaymentOptions {
  privateKey?: `0x${string}`;
  /** USD, whole or fractional (6 decimals). */
  usd?: number;
  /** Signed value, when it should differ from the accepted amount. */
  signedUnits?: bigint;
  to?: string;
  validAfter?: number;
  validBefore?: number;
  nonce?: `0x${string}`;
  accepted?: Partial<X402PaymentRequirements>;
  /** Sign on another chain or token contract (the wrong domain). */
  chainId?: number;
  verifyingContract?: `0x${string}`;
}

/** A base64 `PAYMENT-SIGNATURE` header value, and its parts. */
export async function evmPayment(options: EvmPaymentOptions = {}) {
  const account = privateKeyToAccount(options.privateKey ?? generatePrivateKey());
  const units = BigInt(Math.round((options.usd ?? 10) * 1e6));
  const now = Math.floor(Date.now() / 1000);
  const authorization = {
    from: account.address,
    to: (options.to ?? BASE_PAY_TO) as `0x${string}`,
    value: options.signedUnits ?? units,
    validAfter: BigInt(options.validAfter ?? now - 600),
    validBefore: BigInt(options.validBefore ?? now + 300),
    nonce: options.nonce ?? (`0x${randomBytes(32).toString('hex')}` as `0x${string}`),
  };
  const signature = await account.signTypedData({
    domain: { ...USDC_EIP712, chainId: options.chainId ?? 8453, verifyingContract: options.verifyingContract ?? BASE_USDC },
    types: TRANSFER_WITH_AUTHORIZATION_TYPES,
    primaryType: 'TransferWithAuthorization',
    message: authorization,
  });
  const payload = {
    x402Version: 2,
    accepted: baseRequirements({ amount: units.toString(), ...options.accepted }),
    payload: {
      signature,
      authorization: {
        ...authorization,
        value: authorization.value.toString(),
        validAfter: authorization.validAfter.toString(),
        validBefore: authorization.validBefore.toString(),
      },
    },
  };
  return { header: encodeHeader(payload), payload, payer: account.address, nonce: authorization.nonce };
}

/** Re-encodes a payload after changing it (tampering after signing). */
export function tampered<T extends { payload: unknown }>(payment: T, change: (payload: T['payload']) => void): string {
  const copy = structuredClone(payment.payload);
  change(copy);
  return encodeHeader(copy as object);
}
