import { siwxHeader, siwxIdentityHash } from './siwx-header';

const header = (payload: unknown) => Buffer.from(JSON.stringify(payload)).toString('base64');
const request = (headers: Record<string, string>) => ({ headers });

describe('the SIGN-IN-WITH-X header before verification', () => {
  const address = '0x45B73055F3aDcC4577Bb709db10B19d11b5c94eE';

  it('is read under its name or the legacy one', () => {
    expect(siwxHeader(request({ 'sign-in-with-x': 'abc' }))).toBe('abc');
    expect(siwxHeader(request({ 'x-sign-in-with-x': 'abc' }))).toBe('abc');
    expect(siwxHeader(request({}))).toBeUndefined();
  });

  it('identifies the claimed wallet for the abuse block: the same wallet whatever the case or message, another wallet apart', () => {
    const a = siwxIdentityHash(request({ 'sign-in-with-x': header({ address, message: 'one' }) }));
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(siwxIdentityHash(request({ 'sign-in-with-x': header({ address: address.toLowerCase(), message: 'two' }) }))).toBe(a);
    expect(siwxIdentityHash(request({ 'sign-in-with-x': header({ address: '0x0000000000000000000000000000000000000001' }) }))).not.toBe(a);
    // Solana addresses are case-sensitive base58.
    const sol = 'BFK9TLC3edb13K6v4YyH3DwPb5DSUpkWvb7XnqCL9b4F';
    expect(siwxIdentityHash(request({ 'sign-in-with-x': header({ address: sol }) }))).not.toBe(
      siwxIdentityHash(request({ 'sign-in-with-x': header({ address: sol.toLowerCase() }) })),
    );
  });

  it('has no identity when the header names no address (its failures count against the client address)', () => {
    expect(siwxIdentityHash(request({ 'sign-in-with-x': 'not base64 json' }))).toBeUndefined();
    expect(siwxIdentityHash(request({ 'sign-in-with-x': header({ message: 'x' }) }))).toBeUndefined();
    expect(siwxIdentityHash(request({ 'sign-in-with-x': header({ address: 'x'.repeat(65) }) }))).toBeUndefined();
  });
});
