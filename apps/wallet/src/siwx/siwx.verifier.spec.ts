import { privateKeyToAccount } from 'viem/accounts';
import { DomainError } from '@svc/errors';
import { encodeHeader, EVM_KEYS, evmSignIn, solanaSignIn, solanaWallet } from '@svc/testing/wallet';
import { walletConfigSchema } from '../config';
import { EvmSignatures } from './evm-signatures';
import { decodeSiwxPayload } from './siwx-payload';
import { SiwxVerifier } from './siwx.verifier';

const PUBLIC_URL = 'https://api.example.test';
const config = walletConfigSchema.parse({ SIWX_PUBLIC_URL: PUBLIC_URL });
const verifier = new SiwxVerifier(config, new EvmSignatures(config));
const alice = privateKeyToAccount(EVM_KEYS.alice);
const sol = solanaWallet(9);

const verify = (header: string) => verifier.verify(decodeSiwxPayload(header));
const refusal = async (header: string | Promise<string>): Promise<string> => {
  try {
    await verify(await header);
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe('UNAUTHORIZED');
    return (err as DomainError).message;
  }
  throw new Error('expected a refusal');
};
const minutes = (n: number) => new Date(Date.now() + n * 60_000);

describe('SiwxVerifier (real signatures)', () => {
  it('accepts an EIP-4361 message signed by the wallet, for the chain written as 8453, "8453" or "eip155:8453"', async () => {
    for (const headerChainId of [8453, '8453', 'eip155:8453']) {
      const signIn = await verify(await evmSignIn(EVM_KEYS.alice, PUBLIC_URL, { nonce: 'abcdef0123456789', headerChainId }));
      expect(signIn).toMatchObject({ network: 'evm', address: alice.address, nonce: 'abcdef0123456789' });
    }
  });

  it('accepts a Sign-In-With-Solana message signed with Ed25519 (base58 or base64 signature)', async () => {
    for (const encoding of ['base58', 'base64'] as const) {
      await expect(verify(solanaSignIn(sol, PUBLIC_URL, { nonce: 'solnonce01', encoding }))).resolves.toMatchObject({
        network: 'solana',
        address: sol.address,
        nonce: 'solnonce01',
      });
    }
  });

  it('keeps the nonce spent until the message expires (plus skew)', async () => {
    const expirationTime = minutes(3);
    const signIn = await verify(await evmSignIn(EVM_KEYS.alice, PUBLIC_URL, { expirationTime }));
    expect(signIn.expiresAt).toBe(expirationTime.getTime() + config.SIWX_CLOCK_SKEW_MS);
  });

  it.each([
    ['a wrong domain', { domain: 'evil.example' }, /domain "evil.example", not "api.example.test"/],
    ['a URI on another origin', { uri: 'https://evil.example/api' }, /URI must be on https:\/\/api.example.test/],
    ['a chain not accepted', { chainId: 1 }, /chain "1" is not accepted/],
    ['a header chain other than the signed one', { headerChainId: 1 }, /header chainId does not match/],
    ['an expired message', { issuedAt: minutes(-20), expirationTime: minutes(-10) }, /has expired/],
    ['a message without expiration older than the max age', { issuedAt: minutes(-12), expirationTime: null }, /has expired/],
    ['a message issued in the future', { issuedAt: minutes(5) }, /issued in the future/],
    ['a message living longer than the max age', { expirationTime: minutes(60) }, /lives longer than 600 s/],
    ['a tampered message', { tamper: (m: string) => m.replace('Sign in to the API', 'Sign in to the APX') }, /signature does not match/],
    ['a tampered signature', { tamperSignature: (s: string) => `${s.slice(0, 10)}${s[10] === 'a' ? 'b' : 'a'}${s.slice(11)}` }, /signature does not match/],
    ['a truncated signature', { tamperSignature: (s: string) => s.slice(0, 60) }, /signature does not match/],
    ['a header naming another address', { headerAddress: privateKeyToAccount(EVM_KEYS.bob).address }, /another address/],
  ])('refuses an EVM sign-in with %s (401)', async (_name, options, message) => {
    expect(await refusal(evmSignIn(EVM_KEYS.alice, PUBLIC_URL, options))).toMatch(message);
  });

  it.each([
    ['a wrong domain', { domain: 'evil.example' }, /domain "evil.example"/],
    [
      'another cluster (devnet)',
      { chainId: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1', headerChainId: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1' },
      /is not accepted/,
    ],
    ['an expired message', { issuedAt: minutes(-20), expirationTime: minutes(-10) }, /has expired/],
    ['a short nonce (viem refuses to write one for EVM)', { nonce: 'abc' }, /nonce must be at least 8/],
    ['a tampered message', { tamper: (m: string) => m.replace('Sign in to the API', 'Sign in to the APX') }, /signature does not match/],
    ['a tampered signature', { tamperSignature: (s: string) => `${s[0] === '2' ? '3' : '2'}${s.slice(1)}` }, /signature does not match/],
    ['a header naming another address', { headerAddress: solanaWallet(10).address }, /another address/],
  ])('refuses a Solana sign-in with %s (401)', async (_name, options, message) => {
    expect(await refusal(solanaSignIn(sol, PUBLIC_URL, options))).toMatch(message);
  });

  it('refuses headers that are not base64 JSON of the documented fields', async () => {
    expect(await refusal('not base64 at all %%%')).toMatch(/Invalid SIGN-IN-WITH-X header/);
    expect(await refusal(encodeHeader({ address: alice.address, message: 'x' }))).toMatch(/Invalid SIGN-IN-WITH-X header/);
    expect(await refusal(encodeHeader({ address: alice.address, message: 'hello', signature: '0x00', timestamp: 1, chainId: 8453 }))).toMatch(
      /not an EIP-4361/,
    );
  });
});
