import { Inject, Injectable } from '@nestjs/common';
import { X402PaymentRequirements, X402TopUpReply } from '@svc/contracts';
import { toNumber } from '@svc/pricing';
import { WALLET_ACCOUNTS, WalletAccounts } from '../accounts/wallet-accounts';
import { FacilitatorClient, facilitatorDown, FacilitatorUnavailable } from './facilitator.client';
import { PaymentVerifier } from './verified-payment';
import { X402BillingClient } from './x402-billing.client';
import { X402_CONFIG, X402Config } from './x402-config.type';
import { notConfigured, refused, replayed } from './x402-errors';
import { NANO_PER_USDC_UNIT } from './x402-networks';
import { decodePaymentHeader, encodeHeader, PaymentPayload } from './x402-payload';
import { paymentRequirements } from './x402-requirements';

export const PAYMENT_VERIFIERS = Symbol('PAYMENT_VERIFIERS');
export const FACILITATOR = Symbol('FACILITATOR');

/** What billing keeps with a claimed payment, so a restart can settle it without the client. */
export interface StoredPayment {
  payload: PaymentPayload;
  requirements: X402PaymentRequirements;
}

/**
 * One x402 top-up: decode, verify locally (signature, amount, window, asset, network, pay-to),
 * claim the payment in billing by its reference (the nonce is single-use from here), verify and
 * settle through the facilitator, record it settled, credit it once.
 */
@Injectable()
export class TopUpService {
  private readonly verifiers: Map<string, PaymentVerifier>;

  constructor(
    @Inject(X402_CONFIG) private readonly config: X402Config,
    @Inject(FACILITATOR) private readonly facilitator: FacilitatorClient | null,
    @Inject(PAYMENT_VERIFIERS) verifiers: PaymentVerifier[],
    @Inject(WALLET_ACCOUNTS) private readonly accounts: WalletAccounts,
    private readonly billing: X402BillingClient,
  ) {
    this.verifiers = new Map(verifiers.map((v) => [v.network, v]));
  }

  requirements(): X402PaymentRequirements[] {
    const accepts = this.offered();
    if (accepts.length === 0) throw notConfigured();
    return accepts;
  }

  /** The options a top-up can be paid with now: none without a facilitator (nothing could be settled). */
  offered(): X402PaymentRequirements[] {
    if (!this.facilitator) return [];
    return paymentRequirements(this.config).filter((r) => this.verifiers.has(r.network));
  }

  async topUp(header: string, requestId: string, nowSeconds = Math.floor(Date.now() / 1000)): Promise<X402TopUpReply> {
    const accepts = this.requirements();
    const payload = decodePaymentHeader(header);
    const ours = accepts.find((r) => r.network === payload.accepted.network);
    const verifier = this.verifiers.get(payload.accepted.network);
    if (!ours || !verifier) throw refused('unknown_network', `Network "${payload.accepted.network}" is not accepted; see the 402 answer's accepts.`);
    const payment = await verifier.verify(payload, ours, nowSeconds);
    const account = await this.accounts.ensure(payment.payer, payment.family);
    const stored: StoredPayment = { payload, requirements: payment.requirements };
    const claim = await this.billing.claim(
      {
        reference: payment.reference,
        accountId: account.accountId,
        walletAddress: account.address,
        network: ours.network,
        amountNano: (payment.amountUnits * NANO_PER_USDC_UNIT).toString(),
        payment: stored,
      },
      requestId,
    );
    if (!claim.claimed) {
      // Settled by an attempt that stopped before crediting (a restart): credit it now.
      if (claim.status === 'SETTLED') return this.credit(payment.reference, null, requestId);
      throw replayed(claim.status === 'PENDING');
    }
    return this.settleAndCredit(payment.reference, stored, requestId);
  }

  /** Also the resumer's path for a payment left PENDING: the facilitator decides again. */
  async settleAndCredit(reference: string, stored: StoredPayment, requestId?: string): Promise<X402TopUpReply> {
    const facilitator = this.facilitator;
    if (!facilitator) throw notConfigured();
    let stage: 'verify' | 'settle' = 'verify';
    try {
      const verdict = await facilitator.verify(stored.payload, stored.requirements);
      if (!verdict.isValid) return await this.refusedBy(reference, verdict.invalidReason, requestId);
      stage = 'settle';
      const settled = await facilitator.settle(stored.payload, stored.requirements);
      if (!settled.success || !settled.transaction) return await this.refusedBy(reference, settled.errorReason, requestId);
      await this.billing.settled(reference, settled.transaction, requestId);
      return await this.credit(reference, settled.payer ?? null, requestId);
    } catch (error) {
      if (!(error instanceof FacilitatorUnavailable)) throw error;
      // Before settle nothing can have moved: the payment may be sent again. A settle without an
      // answer may have moved funds: it stays PENDING for the resumer, never credited unsettled.
      if (stage === 'verify') await this.billing.failed(reference, error.message, requestId);
      throw facilitatorDown();
    }
  }

  private async refusedBy(reference: string, reason: string | null | undefined, requestId?: string): Promise<never> {
    const why = reason ?? 'refused';
    await this.billing.failed(reference, `facilitator: ${why}`, requestId);
    throw refused('facilitator_refused', `The facilitator refused the payment (${why.slice(0, 200)}); nothing was credited.`);
  }

  private async credit(reference: string, payer: string | null, requestId?: string): Promise<X402TopUpReply> {
    const credit = await this.billing.credit(reference, requestId);
    if (credit.status === 'not_settled') throw replayed(true);
    const network = reference.split(':').slice(0, 2).join(':');
    return {
      walletAddress: credit.walletAddress,
      amountCredited: toNumber(BigInt(credit.amountNano)),
      newBalance: toNumber(BigInt(credit.balanceNano)),
      paymentId: credit.paymentId,
      paymentResponse: encodeHeader({ success: true, network, payer: payer ?? credit.walletAddress, transaction: credit.transaction }),
    };
  }
}
