import { modelSchema } from '@svc/catalog';
import { DiffusionVideoEngine } from './diffusion/diffusion-video.engine';
import { DiffusionVideoEngineFactory, OpenAIVideosEngineFactory, videoGenerationProviders } from './generation.providers';
import { OpenAIVideosEngine } from './upstream/openai-videos.engine';

const video = (engine: Record<string, unknown>) =>
  modelSchema.parse({ id: 'm', name: 'M', type: 'video', engine, pricing: { video: { per_second: { '720p': { usd: 0.1, diem: 0.1 } } } } });

describe('video generation engine factories', () => {
  it('are the Nest providers, one per catalog engine kind', () => {
    expect(videoGenerationProviders).toEqual([DiffusionVideoEngineFactory, OpenAIVideosEngineFactory]);
    expect(new DiffusionVideoEngineFactory({ SVC_MODELS_DIR: '/models', IMAGE_THREADS: 0 }).kind).toBe('embedded-diffusion-video');
    expect(new OpenAIVideosEngineFactory().kind).toBe('openai-compatible');
  });

  it('build the demo engine from the model file under SVC_MODELS_DIR, loading nothing until the first job', () => {
    const engine = new DiffusionVideoEngineFactory({ SVC_MODELS_DIR: '/nowhere', IMAGE_THREADS: 0 }).create(
      video({ kind: 'embedded-diffusion-video', file: 'zoo/x.onnx' }),
    );
    expect(engine).toBeInstanceOf(DiffusionVideoEngine);
    expect(engine.kind).toBe('embedded-diffusion-video');
  });

  it('build the upstream adapter, and refuse one whose key variable is not set or another kind', () => {
    const upstream = { kind: 'openai-compatible', baseUrl: 'https://videos.example.com/v1', model: 'sora-2' };
    expect(new OpenAIVideosEngineFactory().create(video(upstream))).toBeInstanceOf(OpenAIVideosEngine);
    expect(() => new OpenAIVideosEngineFactory().create(video({ ...upstream, apiKeyEnv: 'SVC_TEST_UNSET_VIDEO_KEY' }))).toThrow(
      'environment variable SVC_TEST_UNSET_VIDEO_KEY (engine.apiKeyEnv) is not set',
    );
    expect(() => new OpenAIVideosEngineFactory().create(video({ kind: 'embedded-diffusion-video', file: 'x.onnx' }))).toThrow('is not openai-compatible');
    expect(() => new DiffusionVideoEngineFactory({ SVC_MODELS_DIR: '/m', IMAGE_THREADS: 0 }).create(video(upstream))).toThrow(
      'is not embedded-diffusion-video',
    );
  });
});
