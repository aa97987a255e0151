import { rotate } from './load';

describe('load', () => {
  it('gives each request the next header set in turn, keeping the shared headers', () => {
    const next = rotate([{ authorization: 'Bearer a' }, { authorization: 'Bearer b' }]);
    const req = { method: 'POST', path: '/v1/chat/completions', headers: { 'content-type': 'application/json', authorization: 'Bearer hot' } };
    expect([next(req), next(req), next(req)].map((r) => r.headers)).toEqual([
      { 'content-type': 'application/json', authorization: 'Bearer a' },
      { 'content-type': 'application/json', authorization: 'Bearer b' },
      { 'content-type': 'application/json', authorization: 'Bearer a' },
    ]);
  });
});
