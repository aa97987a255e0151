import { videoConstraintsOf } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { checkRegion } from './video-region';

const blocked = videoConstraintsOf({ id: 'm', constraints: { regionBlock: { countries: ['XX'], cidrs: ['198.51.100.0/24', '2001:db8::/32'] } } });
const refusal = (headers: Record<string, string>, ip: string): ErrorCode | null => {
  try {
    checkRegion('m', blocked, headers, ip);
    return null;
  } catch (err) {
    return (err as DomainError).code;
  }
};

describe('checkRegion', () => {
  it.each<[string, Record<string, string>, string, ErrorCode | null]>([
    ['a blocked country in the default header, any case', { 'cf-ipcountry': 'xx' }, '203.0.113.9', ErrorCode.Forbidden],
    ['another country', { 'cf-ipcountry': 'FR' }, '203.0.113.9', null],
    ['no header, address outside the ranges', {}, '203.0.113.9', null],
    ['an address in a blocked IPv4 range', {}, '198.51.100.77', ErrorCode.Forbidden],
    ['the same address written IPv4-mapped', {}, '::ffff:198.51.100.77', ErrorCode.Forbidden],
    ['an address in a blocked IPv6 range', {}, '2001:db8::1', ErrorCode.Forbidden],
    ['an unparsable address', {}, 'not-an-ip', null],
  ])('%s', (_name, headers, ip, expected) => {
    expect(refusal(headers, ip)).toBe(expected);
  });

  it('lets every caller through when the model has no region block', () => {
    expect(() => checkRegion('m', videoConstraintsOf({ id: 'm', constraints: {} }), { 'cf-ipcountry': 'XX' }, '198.51.100.1')).not.toThrow();
  });
});
