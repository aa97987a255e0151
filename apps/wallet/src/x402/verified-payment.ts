import { X402PaymentRequirements } from '@svc/contracts';
import { WalletNetwork } from '../accounts/wallet-accounts';
import { PaymentPayload } from './x402-payload';

/** A payment whose signature, amount, window, asset and pay-to were checked locally. */
export interface VerifiedPayment {
  /** The wallet family its payer signs in with (and whose account is credited). */
  family: WalletNetwork;
  payer: string;
  /** Base units of USDC. */
  amountUnits: bigint;
  /** Unique per payment: `<caip2 network>:<payer>:<nonce>`. */
  reference: string;
  payload: PaymentPayload;
  /** Our own requirements it was checked against (what the facilitator is asked to verify). */
  requirements: X402PaymentRequirements;
}

/** Checks one rail's payload; throws a refusal (400) naming the first problem. */
export interface PaymentVerifier {
  readonly network: string;
  verify(payload: PaymentPayload, requirements: X402PaymentRequirements, nowSeconds: number): Promise<VerifiedPayment>;
}
