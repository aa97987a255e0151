import { Catalog, catalogSchema } from '@svc/catalog';
import { DomainError, ErrorCode } from '@svc/errors';
import { Logger } from '@svc/logging';
import { AudioEngineRegistry } from './engine-registry';
import { DebianSphinxDecoder } from './pocketsphinx/debian-decoder';
import { PocketsphinxEngine } from './pocketsphinx/pocketsphinx.engine';
import { EngineUnavailableError } from './pocketsphinx/sphinx-decoder';
import { WasmSphinxDecoder } from './pocketsphinx/wasm-decoder';

const logger = { info: jest.fn(), warn: jest.fn(), error: jest.fn(), child: () => logger } as unknown as Logger;
const NO_DEBIAN = new DebianSphinxDecoder('/nonexistent/pocketsphinx_continuous', '/nonexistent/model/en-us');

describe('PocketSphinx decoder choice', () => {
  it('without the Debian package, names the package to install when only the Debian decoder is allowed', async () => {
    const engine = new PocketsphinxEngine({ decoders: [NO_DEBIAN], timeoutPerAudioSecondMs: 1000 });
    await expect(engine.ready()).rejects.toThrow(EngineUnavailableError);
    await expect(engine.ready()).rejects.toThrow(/Debian package "pocketsphinx"/);
  });

  it('falls back to the WebAssembly decoder from npm, which never runs a Debian path', async () => {
    const engine = new PocketsphinxEngine({ decoders: [NO_DEBIAN, new WasmSphinxDecoder()], timeoutPerAudioSecondMs: 1000 });
    await engine.ready();
    expect(engine.decoder).toBe('wasm');
    const { file, args } = new WasmSphinxDecoder().command('/tmp/x.wav');
    expect(file).toBe(process.execPath);
    expect([file, ...args].join(' ')).not.toMatch(/\/usr\/(bin|share)\/pocketsphinx/);
    expect(args[1]).toMatch(/node_modules\/pocketsphinx\.js\/pocketsphinx\/model\/en-us$/);
  });
});

describe('audio engines when a model cannot start', () => {
  it('logs it, answers 503 for that model and keeps serving the others', async () => {
    const catalog = new Catalog(
      catalogSchema.parse({
        models: [
          {
            id: 'stt',
            name: 'stt',
            type: 'asr',
            engine: { kind: 'embedded-pocketsphinx', decoder: 'debian', binary: '/nonexistent/pocketsphinx_continuous' },
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
