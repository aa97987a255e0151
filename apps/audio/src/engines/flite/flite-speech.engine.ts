import { Logger } from '@svc/logging';
import { StreamingEncoder } from '../ffmpeg/encoder';
import { wavSamples } from '../ffmpeg/wav';
import { AudioAbortedError, OnAudio, SpeakRequest, SpeakResult, SpeechEngine } from '../engine';
import { splitForSpeech } from '../text-chunks';
import { inProcessSlot } from '../process-slots';
import { FliteProcess } from './flite-process';

/** Flite's built-in voices at 16 kHz (kal is 8 kHz; kal16 is its 16 kHz build). */
export const FLITE_VOICES = ['slt', 'awb', 'rms', 'kal16'] as const;

export interface FliteOptions {
  /** Per utterance (one sentence-sized piece). */
  utteranceTimeoutMs: number;
  /** Whole request, encoding included. */
  requestTimeoutMs: number;
}

/** 250 ms of silence between pieces, at Flite's 16 kHz. */
const GAP = Buffer.alloc(16_000 * 2 * 0.25);

/**
 * Embedded TTS: Flite (WASI, in a child process) per sentence, then one ffmpeg process encoding
 * and applying the speed as the PCM arrives; streamed output leaves ffmpeg as it is encoded. At
 * most AUDIO_PROCESS_CONCURRENCY requests encode at once.
 */
export class FliteSpeechEngine implements SpeechEngine {
  readonly kind = 'embedded' as const;
  private readonly flite: FliteProcess;

  constructor(
    private readonly options: FliteOptions,
    log: Logger,
  ) {
    this.flite = new FliteProcess(log, options.utteranceTimeoutMs);
  }

  async ready(): Promise<void> {
    await this.flite.start();
  }

  get pid(): number | undefined {
    return this.flite.pid;
  }

  /**
   * Waits for an `engine` process slot (process-slots.ts) before its ffmpeg encoder starts: 200
   * requests at once must not start 200 encoders on a 2-core machine and starve the service's
   * heartbeats. A request aborted while it waits starts nothing.
   */
  speak(request: SpeakRequest, onAudio?: OnAudio): Promise<SpeakResult> {
    return inProcessSlot('engine', () => {
      if (request.signal.aborted) throw new AudioAbortedError('aborted');
      return this.speakNow(request, onAudio);
    });
  }

  private async speakNow(request: SpeakRequest, onAudio?: OnAudio): Promise<SpeakResult> {
    const pieces = splitForSpeech(request.input);
    // Streamed output is forwarded in order; forwarding awaits the reader (back-pressure).
    let forwarding: Promise<void> = Promise.resolve();
    const encoder = new StreamingEncoder(
      { format: request.format, speed: request.speed, inputSampleRate: 16_000, timeoutMs: this.options.requestTimeoutMs, signal: request.signal },
      onAudio && ((chunk) => void (forwarding = forwarding.then(() => onAudio(chunk)))),
    );
    let audio: Buffer;
    try {
      for (const [i, piece] of pieces.entries()) {
        if (request.signal.aborted) throw new AudioAbortedError('aborted');
        const { pcm, sampleRate } = wavSamples(await this.flite.speak(request.voice, piece));
        if (sampleRate !== 16_000) throw new Error(`unexpected Flite sample rate ${sampleRate}`);
        if (i > 0) await encoder.write(GAP);
        await encoder.write(pcm);
        await forwarding;
        request.onProgress?.(i + 1, pieces.length);
      }
      audio = await encoder.finish();
      await forwarding;
    } catch (err) {
      encoder.kill(err instanceof Error ? err : new Error(String(err)));
      if (request.signal.aborted) throw new AudioAbortedError('aborted');
      throw err;
    }
    return { audio, characters: [...request.input].length };
  }

  close(): Promise<void> {
    return this.flite.close();
  }
}
