import { quote, toNumber } from './index';
import { VideoPricing } from './video-pricing.schema';
import { VideoPriceInputError, VideoPriceRequest, videoUsageOf } from './video-usage';

const usd = (usdPrice: number) => ({ usd: usdPrice, diem: usdPrice * 2 });
const priceOf = (video: VideoPricing, r: VideoPriceRequest, defaults = {}) => toNumber(quote('m', { video }, videoUsageOf(video, r, defaults)).total.usd);

const perSecond: VideoPricing = { per_second: { '480p': usd(0.05), '720p': usd(0.1) }, audio_multiplier: 1.5 };
const megapixel: VideoPricing = { per_megapixel_second: usd(0.02) };
const withInput: VideoPricing = { per_second: { '720p': usd(0.1) }, video_input: { per_million_tokens: usd(2.5) } };
const upscale: VideoPricing = { upscale: { '1x': usd(0.01), '2x': usd(0.02), '4x': usd(0.05) } };
const interpolation: VideoPricing = { interpolation: { per_frame: usd(0.0001) } };

describe('video prices (hand-computed)', () => {
  it.each<[string, VideoPricing, VideoPriceRequest, number]>([
    // 5 s x 0.10 USD
    ['per second by resolution, no audio', perSecond, { duration: '5s', resolution: '720p', audio: false }, 0.5],
    // 5 s x 0.10 x 1.5 (audio on by default)
    ['per second, audio multiplier', perSecond, { duration: '5s', resolution: '720p' }, 0.75],
    ['per second, 480p, 30 s', perSecond, { duration: '30s', resolution: '480p', audio: false }, 1.5],
    // 1280 x 720 = 921,600 px x 4 s = 3,686,400 px-s = 3.6864 MP-s x 0.02
    ['megapixel, 720p 16:9', megapixel, { duration: '4s', resolution: '720p', aspect_ratio: '16:9' }, 0.073728],
    // 720 x 720 = 518,400 px x 4 s = 2.0736 MP-s x 0.02
    ['megapixel, 720p 1:1', megapixel, { duration: '4s', resolution: '720p', aspect_ratio: '1:1' }, 0.041472],
    // (10 + 5) s x 921,600 px x 24 / 1024 = 324,000 tokens x 2.5 / 1M
    [
      'with video input, (input + output) x pixels',
      withInput,
      { duration: '5s', resolution: '720p', aspect_ratio: '16:9', reference_video_total_duration: 10 },
      0.81,
    ],
    // -1: output = source 8 s; adaptive: widest frame 21:9 = 1680 x 720 = 1,209,600 px; (8 + 8) x 1,209,600 x 24 / 1024 = 453,600 tokens
    [
      'source-matched duration and aspect',
      withInput,
      { duration: '-1', resolution: '720p', aspect_ratio: 'adaptive', reference_video_total_duration: 8 },
      1.134,
    ],
    // without reference duration: the no-reference baseline (per second) is quoted
    ['with-input model, no reference: baseline', withInput, { duration: '5s', resolution: '720p', audio: false }, 0.5],
    // 7 s (6.2 s rounded up) x 0.02
    ['upscale 2x, 30 fps', upscale, { duration: '5s', upscale_factor: 2, source: { seconds: 6.2, fps: 30 } }, 0.14],
    // doubled at target_fps 48
    ['upscale 2x, target_fps 48 doubles', upscale, { duration: '5s', upscale_factor: 2, target_fps: 48, source: { seconds: 6.2, fps: 30 } }, 0.28],
    ['upscale 4x, target_fps 47 does not', upscale, { duration: '5s', upscale_factor: 4, target_fps: 47, source: { seconds: 2, fps: 24 } }, 0.1],
    ['upscale default factor 2', upscale, { duration: '3s' }, 0.06],
    // 2 s x 60 fps = 120 frames x 0.0001
    ['interpolation to 60 fps', interpolation, { duration: '5s', target_fps: 60, source: { seconds: 2, fps: 24 } }, 0.012],
    // slowdown 4: 2 s x 4 = 8 s x 60 fps = 480 frames
    [
      'interpolation, slowdown 4 multiplies the duration',
      interpolation,
      { duration: '5s', target_fps: 60, slowdown_factor: 4, source: { seconds: 2, fps: 24 } },
      0.048,
    ],
    // 120 fps is twice the frames of 60: linear
    ['interpolation scales linearly with fps', interpolation, { duration: '5s', target_fps: 120, source: { seconds: 2, fps: 24 } }, 0.024],
  ])('%s', (_name, pricing, request, expected) => {
    expect(priceOf(pricing, request)).toBeCloseTo(expected, 9);
  });

  it('uses the model default resolution and generation length', () => {
    expect(priceOf(perSecond, { duration: '1 gen', audio: false }, { resolution: '480p', generationSeconds: 4 })).toBeCloseTo(0.2, 9);
  });

  it.each<[string, VideoPricing, VideoPriceRequest, string]>([
    ['duration out of range', perSecond, { duration: '31s', resolution: '720p' }, 'duration'],
    ['resolution missing', perSecond, { duration: '5s' }, 'resolution'],
    ['resolution not priced', perSecond, { duration: '5s', resolution: '1080p' }, 'resolution'],
    ['megapixel without aspect_ratio', megapixel, { duration: '5s', resolution: '720p' }, 'aspect_ratio'],
    ['-1 without reference duration', withInput, { duration: '-1', resolution: '720p' }, 'reference_video_total_duration'],
    ['auto with a 3 s source', withInput, { duration: 'auto', resolution: '720p', reference_video_total_duration: 3 }, 'reference_video_total_duration'],
    ['adaptive without reference duration', withInput, { duration: '5s', resolution: '720p', aspect_ratio: 'adaptive' }, 'reference_video_total_duration'],
    ['reference over 150 s', withInput, { duration: '5s', resolution: '720p', reference_video_total_duration: 151 }, 'reference_video_total_duration'],
    ['upscale factor not priced', { upscale: { '2x': usd(0.02) } }, { duration: '5s', upscale_factor: 4 }, 'upscale_factor'],
    ['upscale without a duration or video', upscale, { duration: 'auto' }, 'video_url'],
    ['interpolation without fps', interpolation, { duration: '5s' }, 'target_fps'],
  ])('refuses %s, naming the field', (_name, pricing, request, field) => {
    let error: unknown;
    try {
      videoUsageOf(pricing, request);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(VideoPriceInputError);
    expect((error as VideoPriceInputError).field).toBe(field);
  });
});
