import { getAddress, isAddressEqual, verifyTypedData } from 'viem';
import { TRANSFER_WITH_AUTHORIZATION_TYPES, USDC_EIP712, X402PaymentRequirements } from '@svc/contracts';
import { checkAccepted } from './amount-checks';
import { VerifiedPayment, PaymentVerifier } from './verified-payment';
import { refused } from './x402-errors';
import { BASE_CHAIN_ID, BASE_MAINNET } from './x402-networks';
import { evmExactPayloadSchema, PaymentPayload } from './x402-payload';

/** A settlement needs a few seconds on chain: an authorization expiring sooner is refused. */
const SETTLE_MARGIN_SECONDS = 6n;

const sameEvmAddress = (a: string, b: string): boolean => /^0x[0-9a-fA-F]{40}$/.test(a) && isAddressEqual(a as `0x${string}`, b as `0x${string}`);

/** USDC on Base: an EIP-3009 `TransferWithAuthorization` signed by the payer (EOA; verified offline with viem). */
export class EvmPaymentVerifier implements PaymentVerifier {
  readonly network = BASE_MAINNET;

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
    const valid = await verifyTypedData({
      address: auth.from as `0x${string}`,
      domain: { ...USDC_EIP712, chainId: BASE_CHAIN_ID, verifyingContract: ours.asset as `0x${string}` },
      types: TRANSFER_WITH_AUTHORIZATION_TYPES,
      primaryType: 'TransferWithAuthorization',
      message: { ...auth, from: auth.from as `0x${string}`, to: auth.to as `0x${string}`, nonce: auth.nonce as `0x${string}` },
      signature: signature as `0x${string}`,
    }).catch(() => false);
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
