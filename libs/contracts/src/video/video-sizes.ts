/** The `resolution` values of the video API and the short side of the frame each stands for. */
export const VIDEO_RESOLUTIONS = {
  '256p': 256,
  '360p': 360,
  '480p': 480,
  '480P': 480,
  '540p': 540,
  '580p': 580,
  '720p': 720,
  '768P': 768,
  '1080p': 1080,
  true_1080p: 1080,
  '1440p': 1440,
  '2K': 1440,
  '2160p': 2160,
  '4k': 2160,
} as const satisfies Record<string, number>;
/** Upscale factors given as a `resolution` (`upscale_factor` says the same). */
export const UPSCALE_RESOLUTIONS = ['1x', '2x', '4x'] as const;
export const RESOLUTION_VALUES: readonly string[] = [...Object.keys(VIDEO_RESOLUTIONS), ...UPSCALE_RESOLUTIONS];

export const FIXED_ASPECT_RATIOS = ['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '9:21', '16:9', '21:9'] as const;
/** `adaptive` / `auto` match the source clip (they need `reference_video_total_duration` on quote). */
export const SOURCE_ASPECT_RATIOS = ['adaptive', 'auto'] as const;
export const ASPECT_RATIO_VALUES = [...FIXED_ASPECT_RATIOS, ...SOURCE_ASPECT_RATIOS] as const;

/** `1s` .. `30s`, and the source-matched or per-generation values. */
export const DURATION_VALUES: readonly string[] = [...Array.from({ length: 30 }, (_, i) => `${i + 1}s`), '-1', '1 gen', 'auto', 'Auto'];
/** Durations that match the source clip. */
export const SOURCE_DURATIONS = ['-1', 'auto', 'Auto'] as const;

export const isSourceDuration = (d: string): boolean => (SOURCE_DURATIONS as readonly string[]).includes(d);
export const isSourceAspect = (a: string | undefined): boolean => a !== undefined && (SOURCE_ASPECT_RATIOS as readonly string[]).includes(a);

const even = (n: number): number => Math.max(2, 2 * Math.round(n / 2));

/**
 * The frame of a resolution and a fixed aspect ratio: the resolution is the short side
 * (`720p` at 16:9 is 1280x720, at 9:16 720x1280), both sides even (what H.264 needs).
 */
export function frameSize(shortSide: number, aspectRatio: string): { width: number; height: number } {
  const [a, b] = aspectRatio.split(':').map(Number);
  return a >= b ? { width: even((shortSide * a) / b), height: even(shortSide) } : { width: even(shortSide), height: even((shortSide * b) / a) };
}

/** The widest frame of a resolution: what a source-matched aspect ratio is priced (and held) at. */
export const WIDEST_ASPECT_RATIO = '21:9';
