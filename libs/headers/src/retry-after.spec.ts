import { retryAfterHeaders } from './retry-after';

describe('retry-after headers', () => {
  it('round the seconds up to at least 1 and keep the milliseconds precise', () => {
    expect(retryAfterHeaders(2_345.2)).toEqual({ 'retry-after': '3', 'retry-after-ms': '2346' });
    expect(retryAfterHeaders(3_000)).toEqual({ 'retry-after': '3', 'retry-after-ms': '3000' });
    expect(retryAfterHeaders(40)).toEqual({ 'retry-after': '1', 'retry-after-ms': '40' });
  });

  it('never say 0 (a client reads it as "at once"), nor anything unreadable', () => {
    expect(retryAfterHeaders(0)).toEqual({ 'retry-after': '1', 'retry-after-ms': '1' });
    expect(retryAfterHeaders(-500)).toEqual({ 'retry-after': '1', 'retry-after-ms': '1' });
    expect(retryAfterHeaders(Number.NaN)).toEqual({ 'retry-after': '1', 'retry-after-ms': '1000' });
  });
});
