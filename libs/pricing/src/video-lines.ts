import { VideoUsage } from '@svc/contracts';
import { Price } from './price.schema';
import { UnitType } from './unit-type';
import { VideoPricing } from './video-pricing.schema';

/** One priced line of a video job, before it is turned into money (quote.ts). */
export interface VideoLine {
  type: string;
  what: string;
  unitType: UnitType;
  quantity: number;
  perSkuUnit: number;
  /** Undefined when the catalog lacks it: quote() refuses, naming `field`. */
  price: Price | undefined;
  field: string;
}

/** Frames per second of the token formula of the with-video-input tier. */
export const VIDEO_INPUT_TOKEN_FPS = 24;
/** Pixel-frames per token of that formula. */
export const VIDEO_INPUT_PIXELS_PER_TOKEN = 1024;
/** `target_fps` from which upscaling costs twice as much. */
export const HIGH_FPS = 48;

const scaled = (p: Price | undefined, factor: number): Price | undefined => p && { usd: p.usd * factor, diem: p.diem * factor };

/** The lines of a video job at its model's rate (see video-pricing.schema.ts). */
export function videoLines(p: VideoPricing | undefined, u: VideoUsage): VideoLine[] {
  const rate = u.rate ?? 'resolution';
  switch (rate) {
    case 'resolution': {
      const price = scaled(p?.per_second?.[u.resolution], audioFactor(p, u));
      return [line('Video', `video-${u.resolution}-second`, 'seconds', u.seconds, 1, price, `video.per_second.${u.resolution}`)];
    }
    case 'megapixel': {
      const price = scaled(p?.per_megapixel_second, audioFactor(p, u));
      return [line('Video', 'video-megapixel-second', 'pixel-seconds', (u.pixels ?? 0) * u.seconds, 1_000_000, price, 'video.per_megapixel_second')];
    }
    case 'video-input': {
      const tokens = videoInputTokens(u.inputSeconds ?? 0, u.seconds, u.pixels ?? 0);
      return [line('Video', 'video-input-mtoken', 'tokens', tokens, 1_000_000, p?.video_input?.per_million_tokens, 'video.video_input')];
    }
    case 'upscale': {
      const factor = u.resolution as '1x' | '2x' | '4x';
      const price = scaled(p?.upscale?.[factor], (u.fps ?? 0) >= HIGH_FPS ? 2 : 1);
      return [line('Upscale', `video-upscale-${factor}-second`, 'seconds', u.seconds, 1, price, `video.upscale.${factor}`)];
    }
    case 'interpolation': {
      const frames = u.seconds * (u.fps ?? 0);
      return [line('Interpolation', 'video-interpolation-frame', 'frames', frames, 1, p?.interpolation?.per_frame, 'video.interpolation.per_frame')];
    }
  }
}

const audioFactor = (p: VideoPricing | undefined, u: VideoUsage): number => (u.audio && p?.audio_multiplier ? p.audio_multiplier : 1);

const line = (type: string, what: string, unitType: UnitType, quantity: number, perSkuUnit: number, price: Price | undefined, field: string): VideoLine => ({
  type,
  what,
  unitType,
  quantity,
  perSkuUnit,
  price,
  field,
});

/** (input + output seconds) x pixels of a frame x 24 frames per second / 1024 pixels per token, rounded up. */
export function videoInputTokens(inputSeconds: number, outputSeconds: number, pixels: number): number {
  return Math.ceil(((inputSeconds + outputSeconds) * pixels * VIDEO_INPUT_TOKEN_FPS) / VIDEO_INPUT_PIXELS_PER_TOKEN);
}
