import { accessSync, constants, existsSync } from 'node:fs';
import { decodeToWav16k, withTempFile } from '../ffmpeg/probe';
import { AudioAbortedError, TranscribeRequest, TranscribeResult, TranscriptionEngine } from '../engine';
import { runProcess } from '../run-process';
import { parsePocketsphinx } from './pocketsphinx-output';

export interface PocketsphinxOptions {
  binary: string;
  /** Directory with the acoustic model, dictionary and language model (Debian pocketsphinx-en-us). */
  modelDir: string;
  /** Decoding time allowed per second of audio, plus a fixed startup allowance. */
  timeoutPerAudioSecondMs: number;
}

export class EngineUnavailableError extends Error {
  override name = 'EngineUnavailableError';
}

/**
 * Embedded STT: CMU PocketSphinx (Debian `pocketsphinx` + `pocketsphinx-en-us`) as a child process
 * per request on a 16 kHz mono WAV decoded by ffmpeg. English only.
 */
export class PocketsphinxEngine implements TranscriptionEngine {
  readonly kind = 'embedded' as const;

  constructor(private readonly options: PocketsphinxOptions) {}

  /** Throws EngineUnavailableError naming the missing Debian package. */
  async ready(): Promise<void> {
    try {
      accessSync(this.options.binary, constants.X_OK);
    } catch {
      throw new EngineUnavailableError(
        `${this.options.binary} is missing: install the Debian package "pocketsphinx" (apt-get install pocketsphinx pocketsphinx-en-us)`,
      );
    }
    if (!existsSync(`${this.options.modelDir}/en-us`)) {
      throw new EngineUnavailableError(`${this.options.modelDir}/en-us is missing: install the Debian package "pocketsphinx-en-us"`);
    }
  }

  async transcribe(request: TranscribeRequest): Promise<TranscribeResult> {
    // Generous: a busy 2-core host runs recognition at up to ~3x real time; the cap only catches a hung process.
    const timeoutMs = 30_000 + Math.ceil((request.durationMs / 1000) * this.options.timeoutPerAudioSecondMs);
    const wav = await decodeToWav16k(request.audio, timeoutMs);
    if (request.signal.aborted) throw new AudioAbortedError('aborted');
    const dir = this.options.modelDir;
    const res = await withTempFile(
      wav,
      (file) =>
        runProcess(
          this.options.binary,
          ['-infile', file, '-time', 'yes', '-logfn', '/dev/null', '-hmm', `${dir}/en-us`, '-lm', `${dir}/en-us.lm.bin`, '-dict', `${dir}/cmudict-en-us.dict`],
          { timeoutMs, signal: request.signal },
        ),
      '.wav',
    );
    if (res.code !== 0) throw new Error(`pocketsphinx exited with ${res.code}`);
    const { words, segments } = parsePocketsphinx(res.stdout.toString());
    return { text: words.map((w) => w.word).join(' '), words, segments, language: 'en' };
  }

  async close(): Promise<void> {
    /* one process per request: nothing stays running */
  }
}
