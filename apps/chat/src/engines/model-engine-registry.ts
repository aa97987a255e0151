import { DomainError, ErrorCode, errorMessage } from '@svc/errors';
import { Logger } from '@svc/logging';
import { ModelDefinition } from '@svc/catalog';
import { watchEngine } from '@svc/messaging';

/** What a registry needs of an engine: its kind for the logs, loading, closing. */
export interface LoadableEngine {
  readonly kind: string;
  ready(): Promise<void>;
  close(): Promise<void>;
}

export interface RegistryNames {
  /** How the logs name an engine: `engine`, `embedding engine`. */
  engine: string;
  /** How an error names the model type: `a text model`, `an embedding model`. */
  model: string;
}

/**
 * One engine per model id, created at boot by the subclass, loaded by `loadAll` (a model whose
 * engine fails to load answers 503 instead of stopping the service) and closed at shutdown.
 */
export abstract class ModelEngineRegistry<E extends LoadableEngine> {
  protected readonly engines = new Map<string, E>();
  private readonly failures = new Map<string, string>();

  protected constructor(
    private readonly names: RegistryNames,
    protected readonly logger: Logger,
  ) {}

  async loadAll(): Promise<void> {
    await Promise.all(
      [...this.engines].map(async ([id, engine]) => {
        const started = Date.now();
        try {
          await engine.ready();
          this.logger.info({ model: id, kind: engine.kind, ms: Date.now() - started }, `${this.names.engine} ready`);
          // Engines with a slot queue (the embedded ones) show their load as metrics.
          if ('stats' in engine) watchEngine(id, () => (engine as unknown as { stats: { running: number; queued: number } }).stats);
        } catch (err) {
          const reason = errorMessage(err);
          this.failures.set(id, reason);
          this.logger.error({ model: id, reason }, `${this.names.engine} failed to load`);
        }
      }),
    );
  }

  get(model: ModelDefinition): E {
    const engine = this.engines.get(model.id);
    if (!engine) throw new DomainError(ErrorCode.ModelNotFound, `Model ${model.id} is not ${this.names.model}.`);
    if (this.failures.has(model.id)) throw new DomainError(ErrorCode.ServiceUnavailable, `Model ${model.id} is not available on this server.`);
    return engine;
  }

  status(): string {
    return this.failures.size === 0 ? 'ok' : `failing: ${[...this.failures.keys()].join(', ')}`;
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.engines.values()].map((e) => e.close().catch(() => undefined)));
  }
}
