import { ProcessAbortedError, runProcess } from './run-process';
import { defaultConcurrency, setProcessConcurrency, waitingFor } from './process-slots';

describe('runProcess', () => {
  afterAll(() => setProcessConcurrency(defaultConcurrency()));

  it('runs at most AUDIO_PROCESS_CONCURRENCY processes of a kind at once; the rest wait, and each deadline counts from its spawn', async () => {
    setProcessConcurrency(2);
    // Each prints how many of its kind were running when it started (a counter file per run).
    const dir = `/tmp/svc-run-process-${process.pid}`;
    const script = `mkdir -p ${dir}; n=$(ls ${dir} | wc -l); touch ${dir}/$$; sleep 0.3; rm ${dir}/$$; echo $n`;
    const runs = Array.from({ length: 6 }, () => runProcess('sh', ['-c', script], { timeoutMs: 700 }));
    await new Promise(setImmediate);
    expect(waitingFor('media')).toBe(4);
    const outputs = await Promise.all(runs);
    expect(outputs.map((r) => r.code)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(Math.max(...outputs.map((r) => Number(r.stdout.toString())))).toBeLessThanOrEqual(1);
    // The recogniser pool is separate: a long engine run does not hold up media processes.
    const engine = runProcess('sh', ['-c', 'sleep 0.5'], { timeoutMs: 2_000, kind: 'engine' });
    await new Promise(setImmediate);
    expect(waitingFor('engine')).toBe(0);
    await engine;
  });

  it('does not start a process whose request was aborted while it waited', async () => {
    setProcessConcurrency(1);
    const first = runProcess('sh', ['-c', 'sleep 0.2'], { timeoutMs: 1_000 });
    const controller = new AbortController();
    const second = runProcess('sh', ['-c', 'echo ran'], { timeoutMs: 1_000, signal: controller.signal });
    controller.abort();
    await expect(second).rejects.toBeInstanceOf(ProcessAbortedError);
    await first;
  });
});
