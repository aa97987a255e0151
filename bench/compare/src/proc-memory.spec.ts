import { parseVmRssKb } from './proc-memory';

describe('proc memory', () => {
  it('reads VmRSS in kB, and nothing for a process without one', () => {
    expect(parseVmRssKb('Name:\tnode\nVmHWM:\t  200000 kB\nVmRSS:\t  181234 kB\nRssAnon:\t 1 kB\n')).toBe(181234);
    expect(parseVmRssKb('Name:\tkthreadd\nState:\tS (sleeping)\n')).toBeUndefined();
  });
});
