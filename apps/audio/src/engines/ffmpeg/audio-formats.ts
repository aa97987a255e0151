import { SpeechFormat } from '@svc/contracts';

/** Every generated format is mono at this rate (OpenAI's `pcm` is 24 kHz signed 16-bit little-endian too). */
export const OUTPUT_SAMPLE_RATE = 24_000;

interface FormatSpec {
  contentType: string;
  /** ffmpeg output arguments (codec and container). */
  args: string[];
}

export const SPEECH_FORMATS: Readonly<Record<SpeechFormat, FormatSpec>> = {
  mp3: { contentType: 'audio/mpeg', args: ['-c:a', 'libmp3lame', '-b:a', '64k', '-f', 'mp3'] },
  opus: { contentType: 'audio/opus', args: ['-c:a', 'libopus', '-b:a', '32k', '-f', 'ogg'] },
  aac: { contentType: 'audio/aac', args: ['-c:a', 'aac', '-b:a', '64k', '-f', 'adts'] },
  flac: { contentType: 'audio/flac', args: ['-c:a', 'flac', '-f', 'flac'] },
  wav: { contentType: 'audio/wav', args: ['-c:a', 'pcm_s16le', '-f', 'wav'] },
  pcm: { contentType: 'audio/pcm', args: ['-c:a', 'pcm_s16le', '-f', 's16le'] },
};

/**
 * `atempo` accepts 0.5-2.0 per stage in this ffmpeg, so speeds outside are a chain of stages
 * (0.25 = 0.5 x 0.5, 4 = 2 x 2). Pitch is kept.
 */
export function atempoChain(speed: number): string | null {
  if (Math.abs(speed - 1) < 1e-6) return null;
  const stages: number[] = [];
  let rest = speed;
  while (rest > 2) {
    stages.push(2);
    rest /= 2;
  }
  while (rest < 0.5) {
    stages.push(0.5);
    rest /= 0.5;
  }
  stages.push(rest);
  return stages.map((s) => `atempo=${s.toFixed(6)}`).join(',');
}
