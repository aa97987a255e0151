import { SiwxSupportedChain, SiwxTerms } from '@svc/contracts';
import { WalletConfig } from '../config';

export const SIWX_STATEMENT = 'Sign in with your wallet to pay for API requests from its x402 credit.';

type SiwxConfig = Pick<WalletConfig, 'SIWX_PUBLIC_URL' | 'SIWX_EVM_CHAIN_IDS' | 'SIWX_SOLANA_CHAIN' | 'SIWX_MAX_AGE_MS' | 'SIWX_EVM_RPC_URL'>;

/**
 * What a sign-in message must say to pass SiwxVerifier, for the challenge of an inference 402:
 * the same domain and origin, every accepted chain with the signature types verified on it
 * (contract-wallet signatures only where a node can check them).
 */
export function siwxTerms(config: SiwxConfig): SiwxTerms {
  const url = new URL(config.SIWX_PUBLIC_URL);
  const evmTypes: SiwxSupportedChain['type'][] = config.SIWX_EVM_RPC_URL ? ['eip191', 'eip1271'] : ['eip191'];
  const supportedChains: SiwxSupportedChain[] = [
    ...config.SIWX_EVM_CHAIN_IDS.flatMap((id) => evmTypes.map((type) => ({ chainId: `eip155:${id}`, type }))),
    { chainId: config.SIWX_SOLANA_CHAIN, type: 'ed25519' },
  ];
  return { domain: url.host, origin: url.origin, statement: SIWX_STATEMENT, maxAgeMs: config.SIWX_MAX_AGE_MS, supportedChains };
}
