import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { SpeechFormat } from '@svc/contracts';
import { ffmpegPath } from '@svc/ffmpeg';
import { atempoChain, OUTPUT_SAMPLE_RATE, SPEECH_FORMATS } from './audio-formats';

export interface EncodeOptions {
  format: SpeechFormat;
  speed: number;
  /** Sample rate of the signed 16-bit mono PCM written in. */
  inputSampleRate: number;
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * One ffmpeg process turning raw PCM (written as it is synthesized) into the requested format,
 * with the speed change applied. Output bytes are handed to `onData` as ffmpeg produces them,
 * which is what makes streaming work for every format; the encoded stream is a pipe, so the
 * WAV header carries no final length (decoders read to the end) when streamed.
 */
export class StreamingEncoder {
  private readonly child;
  private readonly done: Promise<void>;
  private failure: Error | null = null;
  private readonly file: string | null;

  /**
   * With `onData`, output is piped out as it is encoded (streaming). Without it, ffmpeg writes a
   * seekable temporary file, so containers get their final headers (WAV and FLAC lengths, MP3
   * Xing frame), and `finish()` returns the bytes.
   */
  constructor(options: EncodeOptions, onData?: (chunk: Buffer) => void) {
    this.file = onData ? null : path.join(os.tmpdir(), `svc-audio-${randomUUID()}`);
    const filters = [atempoChain(options.speed)].filter((f): f is string => f !== null);
    const args = [
      '-hide_banner',
      '-loglevel',
      'error',
      '-f',
      's16le',
      '-ar',
      String(options.inputSampleRate),
      '-ac',
      '1',
      '-i',
      'pipe:0',
      ...(filters.length ? ['-af', filters.join(',')] : []),
      '-ar',
      String(OUTPUT_SAMPLE_RATE),
      '-ac',
      '1',
      ...SPEECH_FORMATS[options.format].args,
      this.file ?? 'pipe:1',
    ];
    const child = spawn(ffmpegPath(), args, { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child = child;
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => onData?.(chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4_096)));
    child.stdin.on('error', () => undefined);
    const timer = setTimeout(() => this.kill(new Error(`encoding took longer than ${options.timeoutMs} ms`)), options.timeoutMs);
    const onAbort = () => this.kill(new Error('aborted'));
    options.signal?.addEventListener('abort', onAbort, { once: true });
    this.done = new Promise((resolve, reject) => {
      child.on('error', (err) => this.kill(err));
      child.on('close', (code) => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        if (this.failure) reject(this.failure);
        else if (code !== 0) reject(new Error(`ffmpeg exited with ${code}: ${stderr.trim().split('\n').pop() ?? ''}`));
        else resolve();
      });
    });
    this.done.catch(() => undefined);
  }

  /** Writes PCM, waiting when ffmpeg's input pipe is full (back-pressure). */
  async write(pcm: Buffer): Promise<void> {
    if (this.failure) throw this.failure;
    if (!this.child.stdin.write(pcm)) await new Promise<void>((resolve) => this.child.stdin.once('drain', resolve));
  }

  /** Closes the input; resolves once every output byte was handed over (or with the file's bytes). */
  async finish(): Promise<Buffer> {
    this.child.stdin.end();
    try {
      await this.done;
      return this.file ? await readFile(this.file) : Buffer.alloc(0);
    } finally {
      if (this.file) await rm(this.file, { force: true });
    }
  }

  kill(reason: Error): void {
    if (this.failure) return;
    this.failure = reason;
    this.child.kill('SIGKILL');
    if (this.file) void this.done.catch(() => undefined).finally(() => rm(this.file as string, { force: true }));
  }
}

/** Encodes a whole PCM buffer at once. */
export async function encodePcm(pcm: Buffer, options: EncodeOptions): Promise<Buffer> {
  const encoder = new StreamingEncoder(options);
  await encoder.write(pcm);
  return encoder.finish();
}
