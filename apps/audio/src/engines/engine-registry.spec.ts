import { Catalog, catalogSchema } from '@svc/catalog';
import { DomainError, ErrorCode } from '@svc/errors';
import { Logger } from '@svc/logging';
import { AudioEngineRegistry } from './engine-registry';
import { EngineUnavailableError, PocketsphinxEngine } from './pocketsphinx/pocketsphinx.engine';

const logger = { info: jest.fn(), warn: jest.fn(), error: jest.fn(), child: () => logger } as unknown as Logger;

describe('audio engines when a Debian package is missing', () => {
  it('names the package to install', async () => {
    const engine = new PocketsphinxEngine({
      binary: '/nonexistent/pocketsphinx_continuous',
      modelDir: '/usr/share/pocketsphinx/model/en-us',
      timeoutPerAudioSecondMs: 1000,
    });
    await expect(engine.ready()).rejects.toThrow(EngineUnavailableError);
    await expect(engine.ready()).rejects.toThrow(/Debian package "pocketsphinx"/);
  });

  it('logs it, answers 503 for that model and keeps serving the others', async () => {
    const catalog = new Catalog(
      catalogSchema.parse({
        models: [
          {
            id: 'stt',
            name: 'stt',
            type: 'asr',
            engine: { kind: 'embedded-pocketsphinx', binary: '/nonexistent/pocketsphinx_continuous' },
            pricing: { per_audio_second: { usd: 0.0001, diem: 0.0001 } },
          },
          {
            id: 'up',
            name: 'up',
            type: 'tts',
            engine: { kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:1/v1', model: 'k' },
            pricing: { input: { usd: 1, diem: 1 } },
          },
        ],
      }),
    );
    const registry = new AudioEngineRegistry(catalog, { requestTimeoutMs: 1000 }, logger);
    await registry.loadAll();
    expect(logger.error).toHaveBeenCalledWith(
      expect.objectContaining({ model: 'stt' }),
      expect.stringMatching(/audio model stt is unavailable: .*pocketsphinx/),
    );
    expect(() => registry.transcriptionEngine(catalog.get('stt')!)).toThrow(expect.objectContaining({ code: ErrorCode.ServiceUnavailable }) as DomainError);
    expect(registry.speechEngine(catalog.get('up')!).kind).toBe('upstream');
    expect(registry.status()).toBe('failing: stt');
    await registry.closeAll();
  });
});
