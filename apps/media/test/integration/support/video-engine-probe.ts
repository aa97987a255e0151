import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ffmpegPath, ffprobePath } from '@svc/ffmpeg';

const run = promisify(execFile);

export interface ProbedVideo {
  codec: string;
  pixFmt: string;
  width: number;
  height: number;
  fps: number;
  frames: number;
  durationSeconds: number;
  /** The `moov` atom comes before `mdat` (`+faststart`). */
  faststart: boolean;
}

/** What ffprobe reads from a video file's first video stream and container. */
export async function probeVideo(file: string): Promise<ProbedVideo> {
  const { stdout } = await run(ffprobePath(), ['-v', 'error', '-count_frames', '-show_streams', '-show_format', '-of', 'json', file]);
  const info = JSON.parse(stdout) as { streams: Array<Record<string, string | number>>; format: { duration: string } };
  const video = info.streams.find((s) => s.codec_type === 'video')!;
  const [num, den] = String(video.r_frame_rate).split('/').map(Number);
  const { readFileSync } = await import('node:fs');
  const head = readFileSync(file);
  return {
    codec: String(video.codec_name),
    pixFmt: String(video.pix_fmt),
    width: Number(video.width),
    height: Number(video.height),
    fps: num / (den || 1),
    frames: Number(video.nb_read_frames),
    durationSeconds: Number(info.format.duration),
    faststart: head.indexOf('moov') < head.indexOf('mdat'),
  };
}

/** Every frame of a video decoded to RGB bytes (small test videos only). */
export async function decodeFrames(file: string, width: number, height: number): Promise<Buffer[]> {
  const { stdout } = await run(ffmpegPath(), ['-v', 'error', '-i', file, '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'], {
    encoding: 'buffer',
    maxBuffer: 256 * 1024 * 1024,
  });
  const size = width * height * 3;
  return Array.from({ length: Math.floor(stdout.length / size) }, (_, i) => stdout.subarray(i * size, (i + 1) * size));
}

/** Mean absolute difference of two equal-size byte arrays, 0-255. */
export function meanAbsDiff(a: Uint8Array, b: Uint8Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += Math.abs(a[i] - b[i]);
  return sum / a.length;
}
