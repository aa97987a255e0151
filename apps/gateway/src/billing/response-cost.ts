import { BillingCurrency } from '@svc/contracts';
import { amountIn, ModelPricing, quote, toNumber } from '@svc/pricing';
import { ResponseCost } from '../admission/admission.types';

/** What these tokens cost in `currency` at `pricing` (the reservation's snapshot), as the public API shows it. */
export function responseCost(
  modelId: string,
  pricing: ModelPricing,
  currency: BillingCurrency,
  usage: { promptTokens: number; completionTokens: number },
): ResponseCost {
  const total = quote(modelId, pricing, { kind: 'text', promptTokens: usage.promptTokens, completionTokens: usage.completionTokens }).total;
  const amount = toNumber(amountIn(total, currency));
  return currency === 'USD' ? { usd: amount, diem: 0 } : { usd: 0, diem: amount };
}
