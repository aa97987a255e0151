import { randomBytes } from 'node:crypto';
import { DomainError } from '@svc/errors';
import { CursorState, decodeCursor, encodeCursor } from './cursor';

const secret = randomBytes(32);
const ACCOUNT = '11111111-1111-4111-8111-111111111111';
const state: CursorState = {
  accountId: ACCOUNT,
  after: { at: '2026-11-22T09:00:00.123Z', id: '9007199254740991' },
  currency: 'USD',
  end: '2026-11-22T10:00:00.000Z',
  pageSize: 10,
  page: 2,
  expiresAt: Date.now() + 60_000,
  total: 1234,
};

function errorOf(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (err) {
    return err as DomainError;
  }
  throw new Error('expected an error');
}

describe('usage-history cursors', () => {
  it('round-trip the walk, as an opaque token within the public API pattern', () => {
    const token = encodeCursor(state, secret);
    expect(token).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(token.length).toBeLessThanOrEqual(512);
    expect(decodeCursor(token, secret, ACCOUNT)).toEqual(state);
    expect(decodeCursor(encodeCursor({ ...state, total: null }, secret), secret, ACCOUNT).total).toBeNull();
  });

  it('refuse a modified token, another account and an expired walk with a 400', () => {
    const token = encodeCursor(state, secret);
    const tampered = encodeCursor({ ...state, page: 3 }, randomBytes(32));
    expect(errorOf(() => decodeCursor(tampered, secret, ACCOUNT)).status).toBe(400);
    expect(errorOf(() => decodeCursor(`${token.slice(0, -2)}AA`, secret, ACCOUNT)).message).toMatch(/Invalid cursor/);
    expect(errorOf(() => decodeCursor(token, secret, '22222222-2222-4222-8222-222222222222')).message).toMatch(/another account/);
    expect(errorOf(() => decodeCursor(token, secret, ACCOUNT, state.expiresAt + 1)).message).toMatch(/expired/);
    expect(errorOf(() => decodeCursor('garbage', secret, ACCOUNT)).status).toBe(400);
  });
});
