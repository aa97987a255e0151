import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { FastifyRequest } from 'fastify';
import { BILLING } from '@svc/contracts';
import { DomainError, ErrorCode, errorMessage } from '@svc/errors';
import { HEADER } from '@svc/headers';
import { Logger } from '@svc/logging';
import { QUICK_CALL_IDLE_MS, RpcClient } from '@svc/messaging';
import { formatAmount, quote } from '@svc/pricing';
import { AdmissionRefusals, AdmissionRequest } from '../admission/admission.types';
import { ProtocolError } from '../http/error-response';
import { GATEWAY_LOGGER } from '../logger.token';
import { walletPaymentRequired } from './wallet-payment-required';
import { X402PaymentTerms } from './x402-payment-terms';

const BALANCE_TIMEOUT_MS = 2_000;

/**
 * Turns admission's "not enough credit" for a wallet (SIGN-IN-WITH-X) caller into x402's own 402:
 * the structured body with the top-up options and a fresh sign-in challenge, and PAYMENT-REQUIRED.
 * Key callers, and every other error, pass through unchanged; so does the refusal when the
 * wallet or billing service cannot say what to offer (the ordinary 402 still goes out).
 */
@Injectable()
export class WalletPaymentRefusals implements AdmissionRefusals {
  constructor(
    private readonly terms: X402PaymentTerms,
    private readonly rpc: RpcClient,
    @Inject(GATEWAY_LOGGER) private readonly logger: Logger,
  ) {}

  async explain(err: unknown, request: AdmissionRequest, http: FastifyRequest): Promise<unknown> {
    if (!(err instanceof DomainError) || err.code !== ErrorCode.InsufficientCredits || !request.key.wallet) return err;
    const { requestId, key, model, worstCase } = request;
    try {
      const [terms, balance] = await Promise.all([
        this.terms.get(requestId),
        this.rpc.send(BILLING.BALANCE, { accountId: key.accountId }, { requestId, timeoutMs: BALANCE_TIMEOUT_MS, idleTimeoutMs: QUICK_CALL_IDLE_MS }),
      ]);
      const balanceUsdNano = BigInt(balance.usdNano);
      const { body, paymentRequired } = walletPaymentRequired({
        terms,
        path: http.url.split('?')[0],
        balanceUsdNano,
        minimumUsdNano: quote(model.id, model.pricing, worstCase).total.usd,
        now: new Date(),
        nonce: randomBytes(16).toString('hex'),
      });
      const headers: Record<string, string> = { [HEADER.balanceRemaining]: formatAmount(balanceUsdNano) };
      if (paymentRequired) headers[HEADER.paymentRequired] = paymentRequired;
      return new ProtocolError(err.code, err.message, { ...body }, headers);
    } catch (failure) {
      this.logger.warn({ requestId, err: errorMessage(failure) }, 'x402 payment terms unavailable: answering the plain 402');
      return err;
    }
  }
}
