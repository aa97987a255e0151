import { VideoRequest } from '../video-engine';

/** What the enhancement engine does with one request: ffmpeg's filter chain, codec and container. */
export interface EnhancePlan {
  filters: string[];
  codecArgs: string[];
  audioArgs: string[];
  extension: 'mp4' | 'mov';
  contentType: 'video/mp4' | 'video/quicktime';
}

/** The input as ffprobe saw it. */
export interface EnhanceSource {
  width: number;
  height: number;
  fps: number;
  hasAudio: boolean;
}

/**
 * Knobs of the reference API that have no honest classical equivalent: accepted (validated by the
 * gateway) and ignored. docs/video.md lists them.
 */
export const IGNORED_KNOBS = ['creativity', 'realism', 'recover_detail', 'halo'] as const;

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const fixed = (n: number): string => n.toFixed(3).replace(/\.?0+$/, '');

/** PQ (SMPTE 2084) in BT.2020, 10-bit: SDR (BT.709, 100 nits) mapped into HDR10's container. */
const HDR10 = ['zscale=tin=709:min=709:pin=709:rin=tv:t=linear:p=709:npl=100', 'format=gbrpf32le', 'zscale=p=bt2020:t=smpte2084:m=bt2020nc:r=tv'];
const HDR10_TAGS = ['-color_primaries', 'bt2020', '-color_trc', 'smpte2084', '-colorspace', 'bt2020nc'];
const HDR10_X265 =
  'hdr-opt=1:repeat-headers=1:colorprim=bt2020:transfer=smpte2084:colormatrix=bt2020nc:master-display=G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1):max-cll=1000,400';

/**
 * The knobs mapped to real filters (docs/video.md, "Enhancement"):
 * - `noise` (0-1): hqdn3d denoising; `compression` (0-1): deband (compression banding);
 * - output size (`upscale_factor`): Lanczos scaling; `softness` (1-5): Gaussian blur above 1;
 *   `sharp` (0-1, 0.5 neutral): unsharp mask, negative below 0.5;
 * - `slowdown_factor`: timestamps stretched, then `target_fps` (or the source rate) filled by
 *   motion-compensated interpolation (minterpolate); `grain` (0-0.1): temporal film grain;
 * - `output_format` `mp4` / `prores`: SDR to HDR10 (PQ, BT.2020) in 10-bit H.265 or ProRes 422 HQ;
 *   `h264_output`: 8-bit H.264; otherwise 8-bit H.265 (the reference's default).
 */
export function enhancePlan(request: VideoRequest, source: EnhanceSource): EnhancePlan {
  const o = request.options;
  const filters: string[] = [];
  const noise = num(o.noise) ?? 0;
  if (noise > 0) filters.push(`hqdn3d=${fixed(noise * 8)}:${fixed(noise * 6)}:${fixed(noise * 12)}:${fixed(noise * 9)}`);
  const compression = num(o.compression) ?? 0;
  if (compression > 0)
    filters.push(`deband=1thr=${fixed(0.01 + 0.04 * compression)}:2thr=${fixed(0.01 + 0.04 * compression)}:3thr=${fixed(0.01 + 0.04 * compression)}`);
  if (request.width !== source.width || request.height !== source.height) filters.push(`scale=${request.width}:${request.height}:flags=lanczos`);
  const softness = num(o.softness) ?? 1;
  if (softness > 1) filters.push(`gblur=sigma=${fixed((softness - 1) * 0.4)}`);
  const sharp = num(o.sharp) ?? 0.5;
  if (sharp !== 0.5) filters.push(`unsharp=5:5:${fixed((sharp - 0.5) * 3)}`);
  const slowdown = num(o.slowdown_factor) ?? 1;
  if (slowdown > 1) filters.push(`setpts=${slowdown}*PTS`);
  if (slowdown > 1 || Math.abs(request.fps - source.fps) > 0.01) filters.push(`minterpolate=fps=${fixed(request.fps)}:mi_mode=mci:mc_mode=aobmc:me_mode=bidir`);
  const grain = num(o.grain) ?? 0;
  if (grain > 0) filters.push(`noise=alls=${Math.max(1, Math.round(grain * 200))}:allf=t`);

  const audioArgs = source.hasAudio && slowdown === 1 && request.options.audio !== false ? ['-c:a', 'aac', '-b:a', '128k'] : ['-an'];
  const format = o.output_format;
  if (format === 'prores') {
    filters.push(...HDR10, 'format=yuv422p10le');
    return { filters, codecArgs: ['-c:v', 'prores_ks', '-profile:v', '3', ...HDR10_TAGS], audioArgs, extension: 'mov', contentType: 'video/quicktime' };
  }
  const mp4 = ['-movflags', '+faststart'];
  if (format === 'mp4') {
    filters.push(...HDR10, 'format=yuv420p10le');
    const codecArgs = [
      '-c:v',
      'libx265',
      '-preset',
      'fast',
      '-crf',
      '22',
      '-x265-params',
      `log-level=error:${HDR10_X265}`,
      '-tag:v',
      'hvc1',
      ...HDR10_TAGS,
      ...mp4,
    ];
    return { filters, codecArgs, audioArgs, extension: 'mp4', contentType: 'video/mp4' };
  }
  filters.push('format=yuv420p');
  const codecArgs =
    o.h264_output === true
      ? ['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', ...mp4]
      : ['-c:v', 'libx265', '-preset', 'fast', '-crf', '24', '-x265-params', 'log-level=error', '-tag:v', 'hvc1', ...mp4];
  return { filters, codecArgs, audioArgs, extension: 'mp4', contentType: 'video/mp4' };
}
