import { domainErrorOf } from '@svc/testing';
import { cryptoRpcConfigSchema } from './rpc.config';
import { familyOf, RpcPricer } from './rpc-pricer';

const NETWORKS = JSON.stringify({
  'ethereum-mainnet': { url: 'http://127.0.0.1:8545', chainId: 1 },
  'solana-mainnet': { urls: ['http://127.0.0.1:8899', 'http://127.0.0.1:8900'], family: 'solana' },
  'zksync-mainnet': { url: 'http://127.0.0.1:3050' },
  'starknet-mainnet': { url: 'http://127.0.0.1:9545', family: 'starknet', baseCredits: 25 },
});
const config = (env: Record<string, string> = {}) => cryptoRpcConfigSchema.parse({ CRYPTO_RPC_NETWORKS: NETWORKS, ...env });
const refusal = domainErrorOf;

describe('RpcPricer', () => {
  const pricer = new RpcPricer(config());

  it('lists the configured networks sorted', () => {
    expect(pricer.networks()).toEqual(['ethereum-mainnet', 'solana-mainnet', 'starknet-mainnet', 'zksync-mainnet']);
  });

  it('prices base credits x tier: 20 on EVM, 30 on Solana and zkSync, an operator base credit as set', () => {
    expect(pricer.price('ethereum-mainnet', ['eth_blockNumber', 'trace_block', 'trace_replayTransaction', 'debug_traceCall'], true).credits).toEqual([
      20, 40, 80, 40,
    ]);
    expect(pricer.price('solana-mainnet', ['getBalance', 'getSupply'], true).credits).toEqual([30, 120]);
    expect(pricer.price('zksync-mainnet', ['zks_getBridgeContracts'], false).credits).toEqual([30]);
    expect(pricer.price('starknet-mainnet', ['starknet_blockNumber'], false).credits).toEqual([25]);
  });

  it('takes operator tiers over the built-in ones, the most specific pattern first', () => {
    const custom = new RpcPricer(config({ CRYPTO_RPC_METHOD_TIERS: JSON.stringify({ eth_getLogs: 3, 'trace_*': 3, 'trace_replay*': 8 }) }));
    // trace_replayTransaction keeps its built-in exact tier (4): an exact name beats any pattern.
    expect(custom.price('ethereum-mainnet', ['eth_getLogs', 'trace_replayTransaction', 'trace_replayFoo', 'trace_block', 'eth_call'], true).credits).toEqual([
      60, 80, 160, 60, 20,
    ]);
  });

  it('refuses an unknown network naming it, and every refused method of a batch by index', () => {
    const unknown = refusal(() => pricer.price('dogecoin-mainnet', ['eth_chainId'], false));
    expect(unknown.code).toBe('VALIDATION');
    expect(unknown.message).toMatch(/Unsupported network "dogecoin-mainnet"/);
    expect(unknown.details).toEqual({ _errors: [], network: { _errors: ['unsupported network "dogecoin-mainnet"'] } });

    const batch = refusal(() => pricer.price('ethereum-mainnet', ['eth_chainId', 'eth_newFilter', 'eth_subscribe', 'admin_peers', 'getBalance'], true));
    expect(batch.details).toMatchObject({
      1: { method: { _errors: [expect.stringMatching(/"eth_newFilter" is not supported: stateful filter.*eth_getLogs/)] } },
      2: { method: { _errors: [expect.stringMatching(/WebSocket-only/)] } },
      3: { method: { _errors: [expect.stringMatching(/allow-list/)] } },
      4: { method: { _errors: [expect.stringMatching(/solana method, and ethereum-mainnet is a evm network/)] } },
    });
    expect(batch.details).not.toHaveProperty('0');
    expect(refusal(() => pricer.price('ethereum-mainnet', ['eth_sendTransaction'], false)).details).toMatchObject({
      method: { _errors: [expect.stringMatching(/eth_sendRawTransaction/)] },
    });
  });

  it('follows an operator allow-list and deny-list', () => {
    const narrow = new RpcPricer(config({ CRYPTO_RPC_ALLOWED_METHODS: 'eth_chainId, eth_get*', CRYPTO_RPC_DENIED_METHODS: 'eth_getLogs' }));
    expect(narrow.price('ethereum-mainnet', ['eth_chainId', 'eth_getBalance'], true).credits).toEqual([20, 20]);
    expect(refusal(() => narrow.price('ethereum-mainnet', ['eth_blockNumber'], false)).message).toMatch(/allow-list/);
    expect(refusal(() => narrow.price('ethereum-mainnet', ['eth_getLogs'], false)).message).toMatch(/CRYPTO_RPC_DENIED_METHODS/);
  });

  it('bills an error at the error credits, never above the method, and states the cost exactly', () => {
    expect(pricer.errorCredits(20)).toBe(5);
    expect(new RpcPricer(config({ CRYPTO_RPC_ERROR_CREDITS: '50' })).errorCredits(20)).toBe(20);
    expect(pricer.costUsd(20)).toBe('0.00001400');
    expect(pricer.costUsd(0)).toBe('0.00000000');
    expect(new RpcPricer(config({ CRYPTO_RPC_PRICE_PER_CREDIT_USD: '0.000000123' })).costUsd(3)).toBe('0.000000369');
    expect(pricer.perCredit).toEqual({ usd: 7e-7, diem: 7e-7 });
    expect(new RpcPricer(config({ CRYPTO_RPC_PRICE_PER_CREDIT_DIEM: '0.000001' })).perCredit).toEqual({ usd: 7e-7, diem: 1e-6 });
  });

  it('tells chain families apart by method name', () => {
    expect(['eth_call', 'zks_L1ChainId', 'starknet_call', 'getBalance'].map(familyOf)).toEqual(['evm', 'evm', 'starknet', 'solana']);
  });
});

describe('crypto RPC configuration', () => {
  it('defaults to no networks and the built-in tables', () => {
    const c = cryptoRpcConfigSchema.parse({});
    expect(c.CRYPTO_RPC_NETWORKS).toEqual({});
    expect(c.CRYPTO_RPC_ALLOWED_METHODS).toContain('eth_*');
    expect(c.CRYPTO_RPC_DENIED_METHODS).toContain('eth_newFilter');
    expect(c.CRYPTO_RPC_PRICE_PER_CREDIT_USD).toBe(7e-7);
  });

  it('refuses bad networks, patterns and prices with a message naming the field', () => {
    const fails = (env: Record<string, string>) => cryptoRpcConfigSchema.safeParse(env).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(fails({ CRYPTO_RPC_NETWORKS: '{"Bad Slug":{"url":"http://x"}}' })?.[0]).toMatch(/^CRYPTO_RPC_NETWORKS/);
    expect(fails({ CRYPTO_RPC_NETWORKS: '{"eth":{"url":"ftp://x"}}' })?.[0]).toMatch(/http or https/);
    expect(fails({ CRYPTO_RPC_NETWORKS: '{"eth":{}}' })?.[0]).toMatch(/exactly one of url and urls/);
    expect(fails({ CRYPTO_RPC_NETWORKS: '/nonexistent/networks.json' })?.[0]).toMatch(/no file could be read there \(ENOENT\)/);
    expect(fails({ CRYPTO_RPC_NETWORKS: '{not json' })?.[0]).toMatch(/not valid JSON/);
    expect(fails({ CRYPTO_RPC_ALLOWED_METHODS: 'eth_*, a*b' })?.[0]).toMatch(/^CRYPTO_RPC_ALLOWED_METHODS/);
    expect(fails({ CRYPTO_RPC_PRICE_PER_CREDIT_USD: '0.0000000001' })?.[0]).toMatch(/at most 9 decimals/);
  });
});
