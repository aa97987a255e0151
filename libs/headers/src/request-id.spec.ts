import { newRequestId } from './request-id';

describe('request ids', () => {
  it('are 16 hex characters and unique', () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newRequestId()));
    expect(ids.size).toBe(10_000);
    for (const id of [...ids].slice(0, 10)) expect(id).toMatch(/^[0-9a-f]{16}$/);
  });
});
