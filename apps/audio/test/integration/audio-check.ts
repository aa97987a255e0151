import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ffprobePath } from '@svc/ffmpeg';

export interface Probed {
  codec: string;
  sampleRate: number;
  channels: number;
  durationS: number;
}

/** ffprobe of encoded bytes; `raw` reads headerless s16le mono at the given rate. */
export function ffprobe(bytes: Buffer, raw?: { sampleRate: number }): Probed {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-audio-test-'));
  const file = path.join(dir, 'audio');
  writeFileSync(file, bytes);
  try {
    const input = raw ? ['-f', 's16le', '-ar', String(raw.sampleRate), '-ac', '1'] : [];
    const res = spawnSync(
      ffprobePath(),
      ['-v', 'error', ...input, '-show_entries', 'stream=codec_name,sample_rate,channels:format=duration', '-of', 'json', file],
      { encoding: 'utf8' },
    );
    const json = JSON.parse(res.stdout) as { streams: Array<{ codec_name: string; sample_rate: string; channels: number }>; format: { duration: string } };
    const s = json.streams[0];
    return { codec: s.codec_name, sampleRate: Number(s.sample_rate), channels: s.channels, durationS: Number(json.format.duration) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Fraction of reference words recognized, in order (longest common subsequence of words). */
export function wordAccuracy(reference: string, hypothesis: string): number {
  const norm = (s: string) =>
    s
      .toLowerCase()
      .replace(/[^a-z' ]/g, ' ')
      .split(/\s+/)
      .filter(Boolean);
  const ref = norm(reference);
  const hyp = norm(hypothesis);
  const dp = Array.from({ length: ref.length + 1 }, () => new Array<number>(hyp.length + 1).fill(0));
  for (let i = 1; i <= ref.length; i++)
    for (let j = 1; j <= hyp.length; j++) dp[i][j] = ref[i - 1] === hyp[j - 1] ? dp[i - 1][j - 1] + 1 : Math.max(dp[i - 1][j], dp[i][j - 1]);
  return dp[ref.length][hyp.length] / ref.length;
}

/** Eight plain read sentences for the speech -> transcription round trip. */
export const ROUND_TRIP_SENTENCES = [
  'The weather is nice today.',
  'Please open the door for me.',
  'I would like a cup of coffee.',
  'The children are playing in the park.',
  'We will meet again next week.',
  'She reads a book every night.',
  'The train leaves at seven in the morning.',
  'Thank you very much for your help.',
];
