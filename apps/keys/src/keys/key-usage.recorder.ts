import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { KEYS_CONFIG, KeysConfig } from '../config';
import { KeysRepository } from './keys.repository';
import { isUuid } from './keys.schemas';
import { errorMessage } from '@svc/errors';

const FLUSH_AT_SIZE = 1_000;

/**
 * Buffers `keys.evt.used.v1` and writes lastUsedAt in one statement per interval, so a busy
 * gateway costs one UPDATE every few seconds. Times only move forward and never past now.
 */
@Injectable()
export class KeyUsageRecorder implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(KeyUsageRecorder.name);
  private pending = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly keys: KeysRepository,
    @Inject(KEYS_CONFIG) private readonly config: Pick<KeysConfig, 'KEYS_USED_FLUSH_MS'>,
  ) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.flush(), this.config.KEYS_USED_FLUSH_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }

  record(uses: Array<{ id: string; at: string }>, now = Date.now()): void {
    for (const use of uses) {
      const at = Math.min(Date.parse(use.at), now);
      if (!isUuid(use.id) || Number.isNaN(at)) continue;
      if (at > (this.pending.get(use.id) ?? -Infinity)) this.pending.set(use.id, at);
    }
    if (this.pending.size >= FLUSH_AT_SIZE) void this.flush();
  }

  /** Writes what is buffered; on failure keeps it for the next attempt. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.writePending());
    return this.flushing;
  }

  private async writePending(): Promise<void> {
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    try {
      await this.keys.recordUses([...batch].map(([id, at]) => ({ id, at: new Date(at) })));
    } catch (err) {
      this.logger.warn(`could not record key usage for ${batch.size} key(s), will retry: ${errorMessage(err)}`);
      for (const [id, at] of batch) if (at > (this.pending.get(id) ?? -Infinity)) this.pending.set(id, at);
    }
  }
}
