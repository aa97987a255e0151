import { createLogger } from '@svc/logging';
import { runProcess } from '../run-process';
import { defaultConcurrency, setProcessConcurrency, waitingFor } from '../process-slots';
import { FliteSpeechEngine } from './flite-speech.engine';

describe('FliteSpeechEngine under load', () => {
  const engine = new FliteSpeechEngine({ utteranceTimeoutMs: 10_000, requestTimeoutMs: 20_000 }, createLogger('audio-test', 'silent'));
  beforeAll(() => engine.ready(), 30_000);
  afterAll(async () => {
    setProcessConcurrency(defaultConcurrency());
    await engine.close();
  });

  const request = (signal: AbortSignal) => ({ input: 'Hello there.', voice: 'slt', format: 'wav' as const, speed: 1, signal });

  it('starts an encoder only when an engine slot is free, and a request aborted while waiting starts none', async () => {
    setProcessConcurrency(1);
    const busy = runProcess('sh', ['-c', 'sleep 0.4'], { timeoutMs: 2_000, kind: 'engine' });
    await new Promise(setImmediate);
    const waiting = engine.speak(request(new AbortController().signal));
    const controller = new AbortController();
    const aborted = engine.speak(request(controller.signal));
    await new Promise(setImmediate);
    expect(waitingFor('engine')).toBe(2);
    controller.abort();
    await busy;
    const spoken = await waiting;
    expect(spoken.audio.subarray(0, 4).toString('ascii')).toBe('RIFF');
    await expect(aborted).rejects.toMatchObject({ name: expect.stringMatching(/Abort/) });
  }, 30_000);
});
