import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ffprobePath as ffprobeBinary } from '@svc/ffmpeg';

const run = promisify(execFile);

export interface VideoProbe {
  seconds: number;
  fps: number;
  width: number;
  height: number;
  /** ffprobe's codec name of the first video stream (`h264`, `hevc`, `prores`, ...). */
  codec: string;
  pixelFormat: string;
  hasAudio: boolean;
}

interface FfprobeStream {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  avg_frame_rate?: string;
  r_frame_rate?: string;
  pix_fmt?: string;
  duration?: string;
}

const rate = (text: string | undefined): number => {
  const [n, d] = (text ?? '0/1').split('/').map(Number);
  return d ? n / d : 0;
};

/** What ffprobe measures of a video file; throws `NotAVideoError` when it has no decodable video stream. */
export async function probeVideo(file: string, signal?: AbortSignal): Promise<VideoProbe> {
  let stdout: string;
  try {
    ({ stdout } = await run(ffprobeBinary(), ['-v', 'error', '-print_format', 'json', '-show_streams', '-show_format', file], { signal, timeout: 30_000 }));
  } catch {
    throw new NotAVideoError('is not a readable video (MP4, MOV or WebM)');
  }
  const parsed = JSON.parse(stdout) as { streams?: FfprobeStream[]; format?: { duration?: string } };
  const video = parsed.streams?.find((s) => s.codec_type === 'video');
  if (!video?.width || !video.height) throw new NotAVideoError('has no video stream');
  const seconds = Number.parseFloat(parsed.format?.duration ?? video.duration ?? '');
  if (!Number.isFinite(seconds) || seconds <= 0) throw new NotAVideoError('has no duration');
  return {
    seconds,
    fps: rate(video.avg_frame_rate) || rate(video.r_frame_rate),
    width: video.width,
    height: video.height,
    codec: video.codec_name ?? 'unknown',
    pixelFormat: video.pix_fmt ?? 'unknown',
    hasAudio: (parsed.streams ?? []).some((s) => s.codec_type === 'audio'),
  };
}

/** An audio file's length and ffprobe container name; throws `NotAVideoError` when it has no decodable audio stream. */
export async function probeAudioClip(file: string, signal?: AbortSignal): Promise<{ seconds: number; format: string }> {
  let stdout: string;
  try {
    ({ stdout } = await run(ffprobeBinary(), ['-v', 'error', '-print_format', 'json', '-show_streams', '-show_format', file], { signal, timeout: 30_000 }));
  } catch {
    throw new NotAVideoError('is not a readable audio file (WAV or MP3)');
  }
  const parsed = JSON.parse(stdout) as { streams?: FfprobeStream[]; format?: { duration?: string; format_name?: string } };
  const audio = parsed.streams?.find((s) => s.codec_type === 'audio');
  if (!audio) throw new NotAVideoError('has no audio stream');
  const seconds = Number.parseFloat(parsed.format?.duration ?? audio.duration ?? '');
  if (!Number.isFinite(seconds) || seconds <= 0) throw new NotAVideoError('has no duration');
  return { seconds, format: parsed.format?.format_name ?? 'unknown' };
}

export class NotAVideoError extends Error {
  override name = 'NotAVideoError';
}
