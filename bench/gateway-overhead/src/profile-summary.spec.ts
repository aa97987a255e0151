import { CpuProfile, summarizeProfile } from './profile-summary';

const frame = (functionName: string, url = '', lineNumber = 0) => ({ functionName, url, lineNumber });

/** Samples 100 us apart from t = 1,000 us: start-up (write), idle, then the measured window. */
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)') },
    { id: 2, callFrame: frame('(idle)') },
    { id: 3, callFrame: frame('writeBuffer') },
    { id: 4, callFrame: frame('flushPending', 'file:///repo/node_modules/nats/lib/nats-base-client/protocol.js', 930) },
  ],
  startTime: 900,
  samples: [3, 3, 2, 2, 4, 4, 4, 3, 2, 2],
  timeDeltas: [100, 100, 100, 100, 100, 100, 100, 100, 100, 100],
};

describe('summarizeProfile', () => {
  it('counts only non-idle samples inside the window, per request, by function', () => {
    const summary = summarizeProfile(profile, [1_350, 1_750], 2);
    expect(summary.busyMsPerRequest).toBeCloseTo(0.2);
    expect(summary.top).toEqual([
      { name: 'flushPending nats/protocol.js:931', msPerRequest: 0.15, share: 0.75 },
      { name: 'writeBuffer', msPerRequest: 0.05, share: 0.25 },
    ]);
  });

  it('is empty for a window without samples', () => {
    expect(summarizeProfile(profile, [10_000, 20_000], 5)).toEqual({ busyMsPerRequest: 0, top: [] });
  });
});
