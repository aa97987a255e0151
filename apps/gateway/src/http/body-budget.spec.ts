import { BodyBudget, SMALL_BODY_BYTES, SMALL_BODY_RESERVE_BYTES } from './body-budget';

const MB = 1_000_000;

describe('BodyBudget', () => {
  it('admits large bodies up to its capacity and gives their bytes back once', () => {
    const budget = new BodyBudget(40 * MB);
    const first = budget.open();
    const second = budget.open();
    expect(first.grow(39 * MB)).toBe(true);
    expect(second.grow(2 * MB)).toBe(false);
    expect(second.bytes).toBe(0);
    expect(budget.inUse).toBe(39 * MB);
    first.release();
    first.release();
    expect(budget.inUse).toBe(0);
    expect(second.grow(2 * MB)).toBe(true);
  });

  it('grows a hold as a body arrives, refusing the chunk that would pass the capacity', () => {
    const budget = new BodyBudget(10 * MB);
    const hold = budget.open();
    expect(hold.grow(4 * MB)).toBe(true);
    expect(hold.grow(9 * MB)).toBe(true);
    expect(hold.grow(11 * MB)).toBe(false);
    expect(budget.inUse).toBe(9 * MB);
  });

  it('keeps a reserve for small bodies: ordinary calls get through while large uploads fill the budget', () => {
    const budget = new BodyBudget(40 * MB);
    expect(budget.open().grow(40 * MB)).toBe(true);
    expect(budget.open().grow(SMALL_BODY_BYTES + 1)).toBe(false);
    const small = Array.from({ length: 16 }, () => budget.open());
    for (const hold of small) expect(hold.grow(SMALL_BODY_BYTES)).toBe(true);
    expect(budget.inUse).toBe(40 * MB + SMALL_BODY_RESERVE_BYTES);
    expect(budget.open().grow(1)).toBe(false);
  });

  it('takes nothing for a released hold', () => {
    const budget = new BodyBudget(10 * MB);
    const hold = budget.open();
    hold.release();
    expect(hold.grow(MB)).toBe(false);
    expect(budget.inUse).toBe(0);
  });
});
