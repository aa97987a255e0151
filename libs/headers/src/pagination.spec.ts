import { paginationHeaders } from './pagination';

describe('pagination headers', () => {
  it('give the totals when known, and leave them out when not counted', () => {
    expect(paginationHeaders(10, 2, 26)).toEqual({
      'x-pagination-limit': '10',
      'x-pagination-page': '2',
      'x-pagination-total': '26',
      'x-pagination-total-pages': '3',
    });
    expect(paginationHeaders(10, 1, 0)['x-pagination-total-pages']).toBe('0');
    expect(paginationHeaders(1000, 1, null)).toEqual({ 'x-pagination-limit': '1000', 'x-pagination-page': '1' });
  });
});
