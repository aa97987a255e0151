import { HEADER } from './header-keys';

/** The spec's x-pagination-* headers; the totals only when the total is known (null: not counted). */
export function paginationHeaders(limit: number, page: number, total: number | null): Record<string, string> {
  const headers: Record<string, string> = { [HEADER.paginationLimit]: String(limit), [HEADER.paginationPage]: String(page) };
  if (total === null) return headers;
  headers[HEADER.paginationTotal] = String(total);
  headers[HEADER.paginationTotalPages] = String(Math.ceil(total / limit));
  return headers;
}
