import { X402PaymentRequirements } from '@svc/contracts';
import { refused } from './x402-errors';
import { MAX_TOP_UP_UNITS, MAX_TOP_UP_USD, MIN_TOP_UP_UNITS, MIN_TOP_UP_USD } from './x402-networks';
import { PaymentPayload } from './x402-payload';

/** The asset, pay-to and amount the payer chose against ours (amount: 5..10,000 USD). */
export function checkAccepted(payload: PaymentPayload, ours: X402PaymentRequirements, sameAddress: (a: string, b: string) => boolean): bigint {
  const accepted = payload.accepted;
  if (accepted.scheme !== 'exact') throw refused('unsupported_scheme', `Scheme "${accepted.scheme}" is not accepted; use "exact".`);
  if (!sameAddress(accepted.asset, ours.asset)) throw refused('wrong_asset', `Only USDC (${ours.asset}) is accepted on ${ours.network}.`);
  if (!sameAddress(accepted.payTo, ours.payTo)) throw refused('wrong_pay_to', `Payments on ${ours.network} must be paid to ${ours.payTo}.`);
  return checkAmount(BigInt(accepted.amount));
}

export function checkAmount(units: bigint): bigint {
  if (units < MIN_TOP_UP_UNITS) throw refused('amount_too_small', `The minimum top-up is ${MIN_TOP_UP_USD} USD.`);
  if (units > MAX_TOP_UP_UNITS) throw refused('amount_too_large', `The maximum top-up is ${MAX_TOP_UP_USD} USD.`);
  return units;
}
