/** One engine's workload: the API body (its model's) and what it makes. */
export interface BenchCase {
  name: string;
  model: string;
  /** `POST /video/queue` fields besides model, prompt and video_url. */
  body: Record<string, unknown>;
  /** Needs the input clip (enhancement models). */
  input: boolean;
}

/** One case per engine kind and mode; inputs are 128x128, 24 fps, 4 s test patterns. */
export const CASES: BenchCase[] = [
  { name: 'ffmpeg upscale 2x, H.264', model: 'svc-video-upscale', body: { duration: '4s', upscale_factor: 2, h264_output: true }, input: true },
  { name: 'ffmpeg upscale 2x, H.265', model: 'svc-video-upscale', body: { duration: '4s', upscale_factor: 2 }, input: true },
  { name: 'ffmpeg interpolate 48 fps, slowdown 2', model: 'svc-video-interpolate', body: { duration: '4s', target_fps: 48, slowdown_factor: 2 }, input: true },
  { name: 'ffmpeg SDR to HDR10 H.265', model: 'svc-video-hdr', body: { duration: '4s', output_format: 'mp4' }, input: true },
  { name: 'diffusion demo, text to video 256p', model: 'svc-zoo-video', body: { duration: '4s', resolution: '256p', aspect_ratio: '1:1' }, input: false },
];
