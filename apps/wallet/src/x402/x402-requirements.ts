import { USDC_EIP712, X402PaymentRequirements } from '@svc/contracts';
import { X402Config } from './x402-config.type';
import { BASE_MAINNET, MIN_TOP_UP_UNITS, SOLANA_MAINNET } from './x402-networks';

/** The options a 402 offers: USDC on each rail whose pay-to address (and, on Solana, fee payer) is configured; `amount` is the minimum. */
export function paymentRequirements(config: X402Config): X402PaymentRequirements[] {
  const accepts: X402PaymentRequirements[] = [];
  const common = { scheme: 'exact' as const, amount: MIN_TOP_UP_UNITS.toString(), maxTimeoutSeconds: config.X402_MAX_TIMEOUT_SECONDS };
  if (config.X402_BASE_PAY_TO) {
    accepts.push({ ...common, network: BASE_MAINNET, asset: config.X402_BASE_USDC, payTo: config.X402_BASE_PAY_TO, extra: { ...USDC_EIP712 } });
  }
  // The fee payer is the facilitator's account that pays the Solana fees: a client cannot build the transaction without it.
  if (config.X402_SOLANA_PAY_TO && config.X402_SOLANA_FEE_PAYER) {
    accepts.push({
      ...common,
      network: SOLANA_MAINNET,
      asset: config.X402_SOLANA_USDC,
      payTo: config.X402_SOLANA_PAY_TO,
      extra: { feePayer: config.X402_SOLANA_FEE_PAYER },
    });
  }
  return accepts;
}
