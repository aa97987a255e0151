import { siwxTerms } from './siwx-terms';

const config = {
  SIWX_PUBLIC_URL: 'https://api.example.test:8443/base',
  SIWX_EVM_CHAIN_IDS: ['8453', '1'],
  SIWX_SOLANA_CHAIN: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
  SIWX_MAX_AGE_MS: 300_000,
  SIWX_EVM_RPC_URL: undefined,
};

describe('siwxTerms', () => {
  it('names the domain and origin the verifier requires, and every accepted chain with its signature type', () => {
    expect(siwxTerms(config)).toEqual({
      domain: 'api.example.test:8443',
      origin: 'https://api.example.test:8443',
      statement: expect.any(String),
      maxAgeMs: 300_000,
      supportedChains: [
        { chainId: 'eip155:8453', type: 'eip191' },
        { chainId: 'eip155:1', type: 'eip191' },
        { chainId: 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp', type: 'ed25519' },
      ],
    });
  });

  it('offers contract-wallet signatures only where a node can verify them', () => {
    const chains = siwxTerms({ ...config, SIWX_EVM_CHAIN_IDS: ['8453'], SIWX_EVM_RPC_URL: 'http://node.test' }).supportedChains;
    expect(chains.map((c) => c.type)).toEqual(['eip191', 'eip1271', 'ed25519']);
  });
});
