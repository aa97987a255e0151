import { Catalog, EngineConfig, ModelDefinition } from '@svc/catalog';
import { DomainError, ErrorCode, errorMessage } from '@svc/errors';
import { Logger } from '@svc/logging';
import { SpeechEngine, TranscriptionEngine } from './engine';
import { FliteSpeechEngine } from './flite/flite-speech.engine';
import { DebianSphinxDecoder } from './pocketsphinx/debian-decoder';
import { PocketsphinxEngine } from './pocketsphinx/pocketsphinx.engine';
import { SphinxDecoder } from './pocketsphinx/sphinx-decoder';
import { WasmSphinxDecoder } from './pocketsphinx/wasm-decoder';
import { OpenAIAudioEngine } from './upstream/openai-audio.engine';

type AnyEngine = SpeechEngine | TranscriptionEngine;

/**
 * The engines of the catalog's `tts` and `asr` models. An engine that cannot start (a
 * PocketSphinx model with `decoder: debian` and no Debian package, say) is logged with what to
 * install and its model answers 503; the others are served.
 */
export class AudioEngineRegistry {
  private readonly speech = new Map<string, SpeechEngine>();
  private readonly transcription = new Map<string, TranscriptionEngine>();
  private readonly failures = new Map<string, string>();

  constructor(
    private readonly catalog: Catalog,
    private readonly options: { requestTimeoutMs: number },
    private readonly logger: Logger,
  ) {
    for (const model of catalog.models) {
      if (model.type === 'tts') this.speech.set(model.id, this.createSpeech(model.id, model.engine));
      if (model.type === 'asr') this.transcription.set(model.id, this.createTranscription(model.id, model.engine));
    }
  }

  async loadAll(): Promise<void> {
    const all: Array<[string, AnyEngine]> = [...this.speech, ...this.transcription];
    await Promise.all(
      all.map(async ([id, engine]) => {
        const started = Date.now();
        try {
          await engine.ready();
          const decoder = engine instanceof PocketsphinxEngine ? { decoder: engine.decoder } : {};
          this.logger.info({ model: id, kind: engine.kind, ...decoder, ms: Date.now() - started }, 'audio engine ready');
        } catch (err) {
          const reason = errorMessage(err);
          this.failures.set(id, reason);
          this.logger.error({ model: id, reason }, `audio model ${id} is unavailable: ${reason}`);
        }
      }),
    );
  }

  speechEngine(model: ModelDefinition): SpeechEngine {
    return this.available(model, this.speech.get(model.id));
  }

  transcriptionEngine(model: ModelDefinition): TranscriptionEngine {
    return this.available(model, this.transcription.get(model.id));
  }

  status(): string {
    return this.failures.size === 0 ? 'ok' : `failing: ${[...this.failures.keys()].join(', ')}`;
  }

  async closeAll(): Promise<void> {
    const all: AnyEngine[] = [...this.speech.values(), ...this.transcription.values()];
    await Promise.all(all.map((e) => e.close().catch(() => undefined)));
  }

  private available<E>(model: ModelDefinition, engine: E | undefined): E {
    if (!engine) throw new DomainError(ErrorCode.ModelNotFound, `Model ${model.id} is not served by the audio service.`);
    if (this.failures.has(model.id)) throw new DomainError(ErrorCode.ServiceUnavailable, `Model ${model.id} is not available on this server.`);
    return engine;
  }

  private createSpeech(id: string, engine: EngineConfig): SpeechEngine {
    if (engine.kind === 'embedded-flite') {
      return new FliteSpeechEngine(
        { utteranceTimeoutMs: engine.utteranceTimeoutMs, requestTimeoutMs: this.options.requestTimeoutMs },
        this.logger.child({ engine: engine.kind, model: id }),
      );
    }
    if (engine.kind === 'openai-compatible') return this.upstream(engine);
    throw new Error(`Model ${id} is a tts model but its engine ${engine.kind} does not synthesize speech.`);
  }

  private createTranscription(id: string, engine: EngineConfig): TranscriptionEngine {
    if (engine.kind === 'embedded-pocketsphinx') {
      const debian = new DebianSphinxDecoder(engine.binary, engine.modelDir);
      const decoders: Record<typeof engine.decoder, SphinxDecoder[]> = {
        auto: [debian, new WasmSphinxDecoder()],
        debian: [debian],
        wasm: [new WasmSphinxDecoder()],
      };
      return new PocketsphinxEngine({ decoders: decoders[engine.decoder], timeoutPerAudioSecondMs: 4_000 });
    }
    if (engine.kind === 'openai-compatible') return this.upstream(engine);
    throw new Error(`Model ${id} is an asr model but its engine ${engine.kind} does not transcribe.`);
  }

  private upstream(engine: Extract<EngineConfig, { kind: 'openai-compatible' }>): OpenAIAudioEngine {
    return new OpenAIAudioEngine({
      baseUrl: engine.baseUrl,
      model: engine.model,
      apiKey: engine.apiKeyEnv ? process.env[engine.apiKeyEnv] : undefined,
      timeoutMs: engine.timeoutMs,
      connections: engine.connections,
    });
  }
}
