import { createLogger } from '@svc/logging';
import { SafeMode } from './safe-mode';

const logger = createLogger('media-test', 'silent');
const rgb = new Uint8Array(4 * 4 * 3);
const classifier = (score: number | Error) => ({
  score: async () => {
    if (score instanceof Error) throw score;
    return score;
  },
  close: async () => undefined,
});

describe('SafeMode', () => {
  it('blurs when the adult probability reaches the threshold', async () => {
    const mode = new SafeMode(async () => classifier(0.4), 0.5, logger);
    expect(await mode.check(rgb, 4, 4, 'r')).toEqual({ score: 0.4, blur: false });
    const strict = new SafeMode(async () => classifier(0.4), 0.4, logger);
    expect(await strict.check(rgb, 4, 4, 'r')).toEqual({ score: 0.4, blur: true });
  });

  it('blurs everything at threshold 0', async () => {
    const mode = new SafeMode(async () => classifier(0), 0, logger);
    expect((await mode.check(rgb, 4, 4, 'r')).blur).toBe(true);
  });

  it('fails closed: no classifier, a failed load or a failed classification blurs', async () => {
    expect(await new SafeMode(async () => null, 0.5, logger).check(rgb, 4, 4, 'r')).toEqual({ score: null, blur: true });
    expect(await new SafeMode(async () => Promise.reject(new Error('no wasm')), 0.5, logger).check(rgb, 4, 4, 'r')).toEqual({ score: null, blur: true });
    expect(await new SafeMode(async () => classifier(new Error('boom')), 0.5, logger).check(rgb, 4, 4, 'r')).toEqual({ score: null, blur: true });
  });
});
