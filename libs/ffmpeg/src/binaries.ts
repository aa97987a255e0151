import { accessSync, chmodSync, constants } from 'node:fs';
import path from 'node:path';

/**
 * The static ffmpeg and ffprobe of `@ffmpeg-installer` / `@ffprobe-installer` (or FFMPEG_PATH /
 * FFPROBE_PATH). npm runs no install scripts here (.npmrc ignore-scripts), so ffprobe can arrive
 * without its executable bit: it is set on first use.
 */
function binary(pkg: string, name: string): string {
  const file = path.join(path.dirname(require.resolve(`${pkg}/package.json`)), name);
  try {
    accessSync(file, constants.X_OK);
  } catch {
    chmodSync(file, 0o755);
  }
  return file;
}

let ffmpeg: string | undefined;
let ffprobe: string | undefined;

export const ffmpegPath = (): string => (ffmpeg ??= process.env.FFMPEG_PATH || binary('@ffmpeg-installer/linux-x64', 'ffmpeg'));
export const ffprobePath = (): string => (ffprobe ??= process.env.FFPROBE_PATH || binary('@ffprobe-installer/linux-x64', 'ffprobe'));
