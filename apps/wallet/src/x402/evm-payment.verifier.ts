import { createPublicClient, getAddress, http, isAddressEqual, verifyTypedData, type PublicClient } from 'viem';
import { TRANSFER_WITH_AUTHORIZATION_TYPES, USDC_EIP712, X402PaymentRequirements } from '@svc/contracts';
import { checkAccepted } from './amount-checks';
import { VerifiedPayment, PaymentVerifier } from './verified-payment';
import { refused } from './x402-errors';
import { BASE_CHAIN_ID, BASE_MAINNET } from './x402-networks';
import { evmExactPayloadSchema, PaymentPayload } from './x402-payload';

/** A settlement needs a few seconds on chain: an authorization expiring sooner is refused. */
const SETTLE_MARGIN_SECONDS = 6n;

const sameEvmAddress = (a: string, b: string): boolean => /^0x[0-9a-fA-F]{40}$/.test(a) && isAddressEqual(a as `0x${string}`, b as `0x${string}`);

/**
 * USDC on Base: an EIP-3009 `TransferWithAuthorization` signed by the payer, verified with viem.
 * Offline (ecrecover) for an externally owned account; with a Base node (`X402_BASE_RPC_URL`) a
 * signature that does not recover to the payer is asked of the node too, so contract wallets
 * (EIP-1271, and EIP-6492 before deployment) can pay.
 */
export class EvmPaymentVerifier implements PaymentVerifier {
  readonly network = BASE_MAINNET;
  private readonly client?: PublicClient;

  constructor(baseRpcUrl?: string) {
    if (baseRpcUrl) this.client = createPublicClient({ transport: http(baseRpcUrl, { timeout: 5_000, retryCount: 0 }) });
  }

  async verify(payload: PaymentPayload, ours: X402PaymentRequirements, nowSeconds: number): Promise<VerifiedPayment> {
    const amount = checkAccepted(payload, ours, sameEvmAddress);
    const parsed = evmExactPayloadSchema.safeParse(payload.payload);
    if (!parsed.success) throw refused('invalid_payload', 'The EVM payment needs `payload.signature` and `payload.authorization` (EIP-3009).');
    const { signature, authorization: auth } = parsed.data;
    if (!sameEvmAddress(auth.to, ours.payTo)) throw refused('wrong_pay_to', `The authorization must pay ${ours.payTo}.`);
    if (auth.value !== amount) throw refused('amount_mismatch', 'The signed value differs from the accepted amount.');
    const now = BigInt(nowSeconds);
    if (auth.validAfter > now) throw refused('not_yet_valid', 'The authorization is not valid yet (validAfter is in the future).');
    if (auth.validBefore <= now + SETTLE_MARGIN_SECONDS) throw refused('expired', 'The authorization has expired (validBefore has passed).');
    if (auth.validBefore - now > BigInt(ours.maxTimeoutSeconds) * 2n + 3600n) throw refused('validity_too_long', 'The authorization is valid for too long.');
    const typed = {
      address: auth.from as `0x${string}`,
      domain: { ...USDC_EIP712, chainId: BASE_CHAIN_ID, verifyingContract: ours.asset as `0x${string}` },
      types: TRANSFER_WITH_AUTHORIZATION_TYPES,
      primaryType: 'TransferWithAuthorization',
      message: { ...auth, from: auth.from as `0x${string}`, to: auth.to as `0x${string}`, nonce: auth.nonce as `0x${string}` },
      signature: signature as `0x${string}`,
    } as const;
    // `eoa`: ecrecover first, so an ordinary wallet never waits for the node.
    const valid = await (this.client ? this.client.verifyTypedData({ ...typed, mode: 'eoa' }) : verifyTypedData(typed)).catch(() => false);
    if (!valid) throw refused('invalid_signature', 'The signature does not match the payer and the authorization.');
    const payer = getAddress(auth.from);
    return {
      family: 'evm',
      payer,
      amountUnits: amount,
      reference: `${this.network}:${payer.toLowerCase()}:${auth.nonce.toLowerCase()}`,
      payload,
      requirements: { ...ours, amount: amount.toString() },
    };
  }
}
