import { VideoRequest } from '../video-engine';
import { enhancePlan } from './enhance-plan';

const source = { width: 64, height: 64, fps: 24, hasAudio: true };
const request = (options: Record<string, unknown>, size = { width: 64, height: 64, fps: 24 }): VideoRequest => ({
  model: 'm',
  prompt: '',
  durationSeconds: 2,
  ...size,
  options,
});

describe('enhancePlan', () => {
  it('keeps a plain pass-through to 8-bit H.265 with the audio', () => {
    const plan = enhancePlan(request({}), source);
    expect(plan.filters).toEqual(['format=yuv420p']);
    expect(plan.codecArgs).toEqual(expect.arrayContaining(['libx265', 'hvc1']));
    expect(plan.audioArgs).toEqual(['-c:a', 'aac', '-b:a', '128k']);
  });

  it('scales with Lanczos, interpolates after stretching for slowdown, and drops the audio then', () => {
    const plan = enhancePlan(request({ slowdown_factor: 2 }, { width: 128, height: 128, fps: 48 }), source);
    expect(plan.filters).toEqual([
      'scale=128:128:flags=lanczos',
      'setpts=2*PTS',
      'minterpolate=fps=48:mi_mode=mci:mc_mode=aobmc:me_mode=bidir',
      'format=yuv420p',
    ]);
    expect(plan.audioArgs).toEqual(['-an']);
  });

  it('maps the knobs to their filters and leaves the neutral values out', () => {
    const plan = enhancePlan(request({ noise: 0.5, compression: 1, softness: 3, sharp: 0.9, grain: 0.05, creativity: 1, halo: 1 }), source);
    expect(plan.filters).toEqual([
      'hqdn3d=4:3:6:4.5',
      'deband=1thr=0.05:2thr=0.05:3thr=0.05',
      'gblur=sigma=0.8',
      'unsharp=5:5:1.2',
      'noise=alls=10:allf=t',
      'format=yuv420p',
    ]);
    expect(enhancePlan(request({ sharp: 0.5, softness: 1 }), source).filters).toEqual(['format=yuv420p']);
    expect(enhancePlan(request({ sharp: 0 }), source).filters[0]).toBe('unsharp=5:5:-1.5');
  });

  it('writes HDR10 H.265, ProRes 422 HQ in a QuickTime file, or H.264', () => {
    const hdr = enhancePlan(request({ output_format: 'mp4' }), source);
    expect(hdr.filters.slice(-2)).toEqual(['zscale=p=bt2020:t=smpte2084:m=bt2020nc:r=tv', 'format=yuv420p10le']);
    expect(hdr.codecArgs).toEqual(expect.arrayContaining(['libx265', 'smpte2084']));
    const prores = enhancePlan(request({ output_format: 'prores' }), source);
    expect(prores).toMatchObject({ extension: 'mov', contentType: 'video/quicktime' });
    expect(prores.codecArgs).toEqual(expect.arrayContaining(['prores_ks']));
    expect(enhancePlan(request({ h264_output: true }), source).codecArgs).toEqual(expect.arrayContaining(['libx264']));
  });
});
