import { Injectable } from '@nestjs/common';
import { BillingCurrency, ChatBilling } from '@svc/contracts';
import { amountIn, ModelPricing, quote, toNumber } from '@svc/pricing';

/** What the gateway knows about a request's reservation while the request runs. */
export interface OpenReservation {
  reservationId: string;
  currency: BillingCurrency;
  modelId: string;
  pricing: ModelPricing;
}

/** The `cost` of a chat response (the public API's `cost: {usd, diem}`). */
export interface ResponseCost {
  usd: number;
  diem: number;
}

/**
 * Reservations of the requests in flight on this gateway, by request id (unique per process), so
 * a controller can hand the reservation to the service that settles it and price its response.
 * The billing stage opens an entry at admission and closes it at settlement.
 */
@Injectable()
export class BillingRequests {
  private readonly open = new Map<string, OpenReservation>();

  add(requestId: string, reservation: OpenReservation): void {
    this.open.set(requestId, reservation);
  }

  remove(requestId: string): void {
    this.open.delete(requestId);
  }

  /** For the service's request: it settles this reservation with exact counts. */
  reservationOf(requestId: string): ChatBilling | undefined {
    const open = this.open.get(requestId);
    return open && { reservationId: open.reservationId };
  }

  /** What these tokens cost, in the reservation's currency, with the prices it was admitted at. */
  costOf(requestId: string, usage: { prompt_tokens: number; completion_tokens: number }): ResponseCost | undefined {
    const open = this.open.get(requestId);
    if (!open) return undefined;
    const total = quote(open.modelId, open.pricing, { kind: 'text', promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens }).total;
    const amount = toNumber(amountIn(total, open.currency));
    return open.currency === 'USD' ? { usd: amount, diem: 0 } : { usd: 0, diem: amount };
  }

  get size(): number {
    return this.open.size;
  }
}
