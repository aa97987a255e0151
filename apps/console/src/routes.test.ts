import { pageFromHash, pagesFor } from './routes';

describe('pages by key type', () => {
  it('offers an INFERENCE key the playground and its own limits, never keys or billing', () => {
    const ids = pagesFor('INFERENCE').map((p) => p.id);
    expect(ids.sort()).toEqual(['limits', 'playground']);
    expect(pageFromHash('#/keys', 'INFERENCE')).toBe('limits');
  });

  it('reads the page from the hash for an ADMIN key, the first page when unknown', () => {
    expect(pageFromHash('#/credits', 'ADMIN')).toBe('credits');
    expect(pageFromHash('#/nope', 'ADMIN')).toBe('keys');
    expect(pageFromHash('', 'ADMIN')).toBe('keys');
  });
});
