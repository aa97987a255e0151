import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { baseRequirements, evmPayment, tampered } from '@svc/testing/wallet';
import { EvmPaymentVerifier } from '../../src/x402/evm-payment.verifier';
import { decodePaymentHeader } from '../../src/x402/x402-payload';

/**
 * Contract-wallet payers (EIP-1271 / EIP-6492) through a Base node: a small local JSON-RPC node
 * stands in for it and answers the universal signature validator's eth_call with `valid`.
 */
describe('x402 top-ups from contract wallets (X402_BASE_RPC_URL)', () => {
  const CONTRACT_WALLET = '0x4444444444444444444444444444444444444444';
  let node: Server;
  let url: string;
  let valid = true;
  const calls: string[] = [];

  beforeAll(async () => {
    node = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        const { id, method } = JSON.parse(body) as { id: number; method: string };
        calls.push(method);
        const result = method === 'eth_call' ? `0x${'0'.repeat(63)}${valid ? '1' : '0'}` : '0x2105';
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id, result }));
      });
    });
    await new Promise<void>((resolve) => node.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(node.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => node.close(resolve)));

  const now = () => Math.floor(Date.now() / 1000);
  /** A payment "from" the contract wallet, signed by a key of its owner (the contract decides). */
  const fromContract = async () =>
    tampered(await evmPayment({ usd: 7 }), (payload) => {
      payload.payload.authorization.from = CONTRACT_WALLET;
    });

  it('accepts a contract wallet the node vouches for, and names the payment by it', async () => {
    valid = true;
    const verified = await new EvmPaymentVerifier(url).verify(decodePaymentHeader(await fromContract()), baseRequirements(), now());
    expect(verified).toMatchObject({ family: 'evm', payer: CONTRACT_WALLET, amountUnits: 7_000_000n });
    expect(calls).toContain('eth_call');
  });

  it('refuses it when the node says the signature is not the wallet’s, and without a node at all', async () => {
    valid = false;
    const header = await fromContract();
    await expect(new EvmPaymentVerifier(url).verify(decodePaymentHeader(header), baseRequirements(), now())).rejects.toMatchObject({
      details: { _errors: ['invalid_signature'] },
    });
    await expect(new EvmPaymentVerifier().verify(decodePaymentHeader(header), baseRequirements(), now())).rejects.toMatchObject({
      details: { _errors: ['invalid_signature'] },
    });
  });

  it('verifies an ordinary wallet offline even with a node configured', async () => {
    calls.length = 0;
    const p = await evmPayment({ usd: 5 });
    const verified = await new EvmPaymentVerifier(url).verify(decodePaymentHeader(p.header), baseRequirements(), now());
    expect(verified.payer).toBe(p.payer);
    expect(calls).toEqual([]);
  });
});
