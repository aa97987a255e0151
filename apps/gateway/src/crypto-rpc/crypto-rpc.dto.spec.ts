import { domainErrorOf } from '@svc/testing';
import { CRYPTO_RPC_MAX_BODY_BYTES, parseIdempotencyKey, parseRpcBody } from './crypto-rpc.dto';
import { IdempotencyStore } from './idempotency.store';

const call = (extra: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', method: 'eth_chainId', params: [], id: 1, ...extra });

describe('parseRpcBody', () => {
  it('accepts a single object or a batch, filling in jsonrpc', () => {
    expect(parseRpcBody({ method: 'eth_blockNumber', id: 'a' })).toEqual({ jsonrpc: '2.0', method: 'eth_blockNumber', id: 'a' });
    expect(parseRpcBody([call(), call({ id: 2, params: { commitment: 'finalized' } })])).toHaveLength(2);
  });

  it('refuses a bad shape with a 400 naming the field, by index in a batch', () => {
    const cases: Array<[unknown, string[]]> = [
      [call({ method: undefined }), ['method']],
      [call({ method: 'eth chainId' }), ['method']],
      [call({ jsonrpc: '1.0' }), ['jsonrpc']],
      [call({ id: undefined }), ['id']],
      [call({ id: 1.5 }), ['id']],
      [call({ params: 'x' }), ['params']],
      [call({ extra: true }), []],
      [
        [call(), call({ method: 7 })],
        ['1', 'method'],
      ],
    ];
    for (const [body, path] of cases) {
      const err = domainErrorOf(() => parseRpcBody(body));
      let node: any = err.details;
      for (const key of path) node = node?.[key];
      expect([err.code, Array.isArray(node?._errors) && node._errors.length > 0]).toEqual(['VALIDATION', true]);
    }
    expect(domainErrorOf(() => parseRpcBody([])).message).toMatch(/at least one/);
    expect(domainErrorOf(() => parseRpcBody(Array.from({ length: 101 }, (_, id) => call({ id })))).message).toMatch(/at most 100/);
    expect(domainErrorOf(() => parseRpcBody(undefined)).message).toMatch(/body is required/);
  });

  it('refuses a body too large for one NATS message with a 413', () => {
    const big = call({ params: ['x'.repeat(CRYPTO_RPC_MAX_BODY_BYTES)] });
    expect(domainErrorOf(() => parseRpcBody(big)).code).toBe('PAYLOAD_TOO_LARGE');
  });
});

describe('Idempotency-Key', () => {
  it("takes the reference's pattern and names the header otherwise", () => {
    expect(parseIdempotencyKey('a1b2c3d4-e5f6_7890')).toBe('a1b2c3d4-e5f6_7890');
    for (const bad of ['', 'has space', 'a'.repeat(256), 'ümlaut'])
      expect(domainErrorOf(() => parseIdempotencyKey(bad)).details).toHaveProperty('Idempotency-Key');
  });

  it('fingerprints the network and the body', () => {
    const fp = IdempotencyStore.fingerprint;
    expect(fp('ethereum-mainnet', call())).toBe(fp('ethereum-mainnet', call()));
    expect(fp('ethereum-mainnet', call())).not.toBe(fp('base-mainnet', call()));
    expect(fp('ethereum-mainnet', call())).not.toBe(fp('ethereum-mainnet', call({ id: 2 })));
  });
});
