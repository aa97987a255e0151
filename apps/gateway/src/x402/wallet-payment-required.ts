import { X402PaymentRequirements, X402PaymentTermsReply } from '@svc/contracts';
import { formatAmount, toNumber } from '@svc/pricing';
import { WalletPaymentRequiredBody } from './wallet-payment-required.schema';

const TOP_UP_ROUTE = '/api/v1/x402/top-up';
const MINIMUM_TOP_UP_USD = 5;
const SUGGESTED_TOP_UP_USD = 10;
const USDC_DECIMALS = 6;
const BASE = 'eip155:8453';
const RESOURCE_DESCRIPTION = 'Inference API';

export interface WalletPaymentRequiredInput {
  terms: X402PaymentTermsReply;
  /** The request's path, without the query string. */
  path: string;
  balanceUsdNano: bigint;
  /** What the request needed to hold. */
  minimumUsdNano: bigint;
  now: Date;
  nonce: string;
}

export interface WalletPaymentRequired {
  body: WalletPaymentRequiredBody;
  /** Base64 JSON `{x402Version, resource, accepts}` for `PAYMENT-REQUIRED`; null when no top-up rail is configured. */
  paymentRequired: string | null;
}

/**
 * The 402 a wallet (SIGN-IN-WITH-X) gets when its credit cannot cover a request: the top-up
 * options `POST /x402/top-up` offers, and a fresh sign-in challenge for the retry. Pure: the
 * terms, balance and nonce come in (docs/wallet.md, "Out of credit").
 */
export function walletPaymentRequired(input: WalletPaymentRequiredInput): WalletPaymentRequired {
  const { terms, path, now } = input;
  const { accepts, siwx } = terms;
  const url = `${siwx.origin}${path}`;
  // The reference's instructions name one rail (Base, "legacy"); Solana when only it is offered.
  const rail: X402PaymentRequirements | undefined = accepts.find((r) => r.network === BASE) ?? accepts[0];
  const short = `Insufficient x402 balance: this request needs ${formatAmount(input.minimumUsdNano)} USD and the wallet has ${formatAmount(input.balanceUsdNano)} USD.`;
  const body: WalletPaymentRequiredBody = {
    error: 'Payment required',
    code: 'PAYMENT_REQUIRED',
    reason: 'insufficient_balance',
    message: rail ? short : `${short} x402 top-ups are not available on this server: ask its operator for credit.`,
    currentBalanceUsd: toNumber(input.balanceUsdNano),
    minimumBalanceUsd: toNumber(input.minimumUsdNano),
    description: RESOURCE_DESCRIPTION,
    suggestedTopUpUsd: SUGGESTED_TOP_UP_USD,
    minimumTopUpUsd: MINIMUM_TOP_UP_USD,
    supportedTokens: ['USDC'],
    supportedChains: [...new Set(accepts.map((r) => railName(r.network)))],
    topUpInstructions: {
      step1: `POST ${TOP_UP_ROUTE} with no payment header to get the payment requirements (accepts)`,
      step2: 'Choose one option from accepts and sign a USDC payment of at least its amount with an x402 client',
      step3: `POST ${TOP_UP_ROUTE} with the signed payment in the PAYMENT-SIGNATURE header, then sign in again`,
      receiverWallet: rail?.payTo ?? '',
      tokenAddress: rail?.asset ?? '',
      tokenDecimals: USDC_DECIMALS,
      network: rail?.network ?? '',
      minimumAmountUsd: MINIMUM_TOP_UP_USD,
    },
    siwxChallenge: {
      info: {
        domain: siwx.domain,
        uri: url,
        version: '1',
        nonce: input.nonce,
        issuedAt: now.toISOString(),
        expirationTime: new Date(now.getTime() + siwx.maxAgeMs).toISOString(),
        statement: siwx.statement,
      },
      supportedChains: siwx.supportedChains,
    },
  };
  const resource = { url, description: RESOURCE_DESCRIPTION, mimeType: 'application/json' };
  const paymentRequired = rail ? Buffer.from(JSON.stringify({ x402Version: terms.x402Version, resource, accepts })).toString('base64') : null;
  return { body, paymentRequired };
}

function railName(network: string): string {
  if (network.startsWith('eip155:')) return network === BASE ? 'base' : network;
  return network.startsWith('solana:') ? 'solana' : network;
}
