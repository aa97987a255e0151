import { upstreamVoice } from './voice-cloning';

describe('upstreamVoice', () => {
  const handle = `vv_${'0123456789abcdef01234567'}`;

  it('binds a clone handle to its account: the same handle names different upstream voices for two accounts', () => {
    const mine = upstreamVoice(handle, 'account-a');
    const theirs = upstreamVoice(handle, 'account-b');
    expect(mine).toMatch(/^vv_[0-9a-f]{24}$/);
    expect(mine).not.toBe(handle);
    expect(theirs).not.toBe(mine);
    expect(upstreamVoice(handle, 'account-a')).toBe(mine);
  });

  it('passes built-in voice names (and no voice) through unchanged', () => {
    expect(upstreamVoice('slt', 'account-a')).toBe('slt');
    expect(upstreamVoice('vv_not-a-handle', 'account-a')).toBe('vv_not-a-handle');
    expect(upstreamVoice(undefined, 'account-a')).toBeUndefined();
  });
});
