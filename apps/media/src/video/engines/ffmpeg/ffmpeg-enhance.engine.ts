import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { probeVideo } from '../../ffmpeg/probe-video';
import { runFfmpeg } from '../../ffmpeg/run-ffmpeg';
import { VideoEngine, VideoRequest, VideoResult, VideoRunContext } from '../video-engine';
import { enhancePlan } from './enhance-plan';

export const FFMPEG_VIDEO_KIND = 'embedded-ffmpeg-video';

/**
 * Video enhancement on ffmpeg (catalog engine `embedded-ffmpeg-video`): Lanczos upscaling,
 * motion-compensated frame interpolation with slowdown, SDR to HDR10 (H.265 or ProRes), and the
 * classical filters the knobs map to (enhance-plan.ts). No learned model.
 */
export class FfmpegEnhanceEngine implements VideoEngine {
  readonly kind = FFMPEG_VIDEO_KIND;

  async run(request: VideoRequest, ctx: VideoRunContext): Promise<VideoResult> {
    if (!request.video) throw new Error('an enhancement job needs its input video');
    const input = path.join(ctx.workDir, 'input');
    await writeFile(input, request.video);
    const source = await probeVideo(input, ctx.signal);
    const plan = enhancePlan(request, source);
    const output = path.join(ctx.workDir, `output.${plan.extension}`);
    const args = [
      '-i',
      input,
      '-map',
      '0:v:0',
      '-map',
      '0:a:0?',
      '-vf',
      plan.filters.join(','),
      '-r',
      String(request.fps),
      ...plan.audioArgs,
      ...plan.codecArgs,
      output,
    ];
    await runFfmpeg(args, { expectedSeconds: request.durationSeconds, signal: ctx.signal, progress: ctx.progress });
    const made = await probeVideo(output, ctx.signal);
    ctx.progress(1);
    return { path: output, contentType: plan.contentType, durationSeconds: made.seconds };
  }
}
