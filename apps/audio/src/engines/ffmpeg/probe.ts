import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ffmpegPath, ffprobePath } from '@svc/ffmpeg';
import { runProcess } from '../run-process';

/** Samples per second when counting decoded audio (low: only the length matters). */
const COUNT_RATE = 8_000;
/** Three hours at COUNT_RATE: anything longer is refused before any model limit applies. */
const MAX_DECODED_BYTES = 3 * 3600 * COUNT_RATE * 2;

/** Containers accepted for transcription (ffprobe's format names). */
const ACCEPTED = /^(wav|mp3|ogg|webm|matroska|mov|mp4|m4a|3gp|flac|aac|opus)/;

export interface ProbedAudio {
  durationMs: number;
  container: string;
}

/** Why an upload is not usable audio: the message is shown to the client as a 400. */
export class BadAudioError extends Error {
  override name = 'BadAudioError';
}

/**
 * Reads the container of an upload with ffprobe and decodes it fully once, so files that are
 * not audio, corrupt, truncated or empty are refused (BadAudioError) before any model runs.
 */
export async function probeAudio(audio: Buffer, timeoutMs: number): Promise<ProbedAudio> {
  if (audio.length === 0) throw new BadAudioError('The audio file is empty.');
  return withTempFile(audio, async (file) => {
    const probe = await runProcess(
      ffprobePath(),
      ['-v', 'error', '-show_entries', 'format=format_name,duration:stream=codec_type,duration', '-of', 'json', file],
      { timeoutMs },
    );
    let parsed: { format?: { format_name?: string; duration?: string }; streams?: Array<{ codec_type?: string; duration?: string }> } = {};
    try {
      parsed = JSON.parse(probe.stdout.toString()) as typeof parsed;
    } catch {
      /* handled below */
    }
    const container = parsed.format?.format_name ?? '';
    const audioStream = parsed.streams?.find((s) => s.codec_type === 'audio');
    if (probe.code !== 0 || !container || !audioStream)
      throw new BadAudioError('The file is not audio in a supported format (wav, mp3, ogg/opus, webm, m4a, flac).');
    if (!ACCEPTED.test(container)) throw new BadAudioError(`Unsupported audio container "${container}"; send wav, mp3, ogg/opus, webm, m4a or flac.`);
    // Decode everything: corrupt data shows up as errors, a truncated file as fewer samples than
    // its header announces. The decoded length is the duration (what is billed).
    const decode = await runProcess(
      ffmpegPath(),
      ['-hide_banner', '-v', 'error', '-nostdin', '-i', file, '-vn', '-ac', '1', '-ar', String(COUNT_RATE), '-f', 's16le', 'pipe:1'],
      {
        timeoutMs,
        maxStdoutBytes: MAX_DECODED_BYTES,
      },
    ).catch((err: unknown) => {
      if (err instanceof RangeError) throw new BadAudioError('The audio is too long.');
      throw err;
    });
    if (decode.code !== 0 || /invalid|error|corrupt/i.test(decode.stderr)) throw new BadAudioError('The audio file is truncated or corrupt.');
    const decodedS = decode.stdout.length / 2 / COUNT_RATE;
    if (decodedS <= 0) throw new BadAudioError('The audio file holds no samples (it is empty or truncated).');
    const declaredS = Number(audioStream.duration ?? parsed.format?.duration);
    if (Number.isFinite(declaredS) && declaredS - decodedS > Math.max(0.5, declaredS * 0.05)) {
      throw new BadAudioError(`The audio file is truncated: its header announces ${declaredS.toFixed(1)} s but it holds ${decodedS.toFixed(1)} s.`);
    }
    return { durationMs: Math.ceil(decodedS * 1000), container: container.split(',')[0] };
  });
}

/** Decodes any supported upload to 16 kHz mono 16-bit WAV (what PocketSphinx expects). */
export async function decodeToWav16k(audio: Buffer, timeoutMs: number): Promise<Buffer> {
  return withTempFile(audio, async (file) => {
    const res = await runProcess(
      ffmpegPath(),
      ['-hide_banner', '-v', 'error', '-nostdin', '-i', file, '-vn', '-ac', '1', '-ar', '16000', '-c:a', 'pcm_s16le', '-f', 'wav', 'pipe:1'],
      {
        timeoutMs,
        maxStdoutBytes: 512 * 1024 * 1024,
      },
    );
    if (res.code !== 0) throw new BadAudioError('The audio file could not be decoded.');
    return res.stdout;
  });
}

export async function withTempFile<T>(data: Buffer, fn: (file: string) => Promise<T>, ext = ''): Promise<T> {
  const file = path.join(os.tmpdir(), `svc-audio-${randomUUID()}${ext}`);
  await writeFile(file, data, { mode: 0o600 });
  try {
    return await fn(file);
  } finally {
    await rm(file, { force: true });
  }
}
