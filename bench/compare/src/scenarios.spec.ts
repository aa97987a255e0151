import { baselineName, runOrder, scenarios } from './scenarios';

describe('scenarios', () => {
  const list = scenarios(32, 64);

  it('covers 1 and 32 connections, both modes, one and 64 accounts', () => {
    expect(list.map((s) => s.name)).toEqual([
      'non-stream 1 conn 1 acct',
      'non-stream 1 conn 64 acct',
      'non-stream 32 conn 1 acct',
      'non-stream 32 conn 64 acct',
      'stream 1 conn 1 acct',
      'stream 1 conn 64 acct',
      'stream 32 conn 1 acct',
      'stream 32 conn 64 acct',
    ]);
  });

  it('loads the direct baseline first, then platform and Portkey in ABBA order', () => {
    expect(list.map((s, i) => runOrder(s, i).join(','))).toEqual([
      'direct,platform,portkey',
      'portkey,platform',
      'direct,portkey,platform',
      'platform,portkey',
      'direct,platform,portkey',
      'portkey,platform',
      'direct,portkey,platform',
      'platform,portkey',
    ]);
  });

  it('compares a many-accounts scenario with the direct run of the same mode and connections', () => {
    expect(baselineName(list[7])).toBe('stream 32 conn 1 acct');
  });
});
