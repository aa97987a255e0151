import { MarginState, mayFitLater } from './may-fit-later';

const noKey = { usedUsd: 0n, usedDiem: 0n, heldUsd: 0n, heldDiem: 0n };
const usdAccount = (balanceUsd: bigint, heldUsd: bigint, key = noKey): MarginState => ({
  order: 'USD_ONLY',
  balanceUsd,
  heldUsd,
  diemStake: 0n,
  diemUsed: 0n,
  diemHeld: 0n,
  key,
});
const ask = (usd: bigint, limitUsd: bigint | null = null) => ({ cost: { usd, diem: usd }, limits: { usd: limitUsd, diem: null } });

describe('mayFitLater: whether waiting for holds to settle can admit a refused request', () => {
  it('says yes when the balance refuses it now but covers it once what is held is settled', () => {
    expect(mayFitLater(usdAccount(100n, 50n), ask(60n))).toBe(true);
  });

  it('says no when nothing is held: nothing will come back', () => {
    expect(mayFitLater(usdAccount(50n, 0n), ask(60n))).toBe(false);
  });

  it('says no when even the settled balance is too small', () => {
    expect(mayFitLater(usdAccount(50n, 40n), ask(60n))).toBe(false);
  });

  it("for a key whose limit refuses it: yes only when the key's own requests hold part of the window", () => {
    const keyHolds = { ...noKey, usedUsd: 30n, heldUsd: 40n };
    expect(mayFitLater(usdAccount(1_000n, 40n, keyHolds), ask(50n, 100n))).toBe(true);
    // Other keys hold credit of the account, but this key's window holds nothing: its limit will not move.
    const otherKeysHold = { ...noKey, usedUsd: 60n };
    expect(mayFitLater(usdAccount(1_000n, 500n, otherKeysHold), ask(50n, 100n))).toBe(false);
    // The limit's settled use already leaves too little.
    expect(mayFitLater(usdAccount(1_000n, 40n, { ...noKey, usedUsd: 60n, heldUsd: 40n }), ask(50n, 100n))).toBe(false);
  });

  it('when the balance and the limit both refuse it, both must have something held', () => {
    const key = { ...noKey, usedUsd: 0n, heldUsd: 80n };
    expect(mayFitLater(usdAccount(100n, 80n, key), ask(50n, 100n))).toBe(true);
    expect(mayFitLater(usdAccount(100n, 80n, { ...key, heldUsd: 0n, usedUsd: 60n }), ask(50n, 100n))).toBe(false);
  });

  it('walks the consumption order: DIEM of the epoch, then USD', () => {
    const diemFirst: MarginState = { ...usdAccount(0n, 0n), order: 'DIEM_FIRST', diemStake: 100n, diemUsed: 20n, diemHeld: 50n };
    expect(mayFitLater(diemFirst, ask(60n))).toBe(true);
    expect(mayFitLater({ ...diemFirst, diemHeld: 0n }, ask(90n))).toBe(false);
    expect(mayFitLater({ ...diemFirst, diemHeld: 0n, balanceUsd: 200n, heldUsd: 150n }, ask(90n))).toBe(true);
  });

  it('counts a request that fits now (its retry will be admitted)', () => {
    expect(mayFitLater(usdAccount(100n, 0n), ask(60n))).toBe(true);
  });
});
