import { Injectable, OnModuleDestroy } from '@nestjs/common';
import { KEYS } from '@svc/contracts';
import { RpcClient } from '@svc/messaging';

const REPORT_EVERY_MS = 60_000;
const FLUSH_EVERY_MS = 5_000;

/** Tells the keys service which keys were used (for lastUsedAt), at most once a minute per key. */
@Injectable()
export class KeyUsageReporter implements OnModuleDestroy {
  private readonly lastReported = new Map<string, number>();
  private pending = new Map<string, string>();
  private readonly timer = setInterval(() => this.flush(), FLUSH_EVERY_MS).unref();

  constructor(private readonly rpc: RpcClient) {}

  used(keyId: string): void {
    const now = Date.now();
    if (now - (this.lastReported.get(keyId) ?? 0) < REPORT_EVERY_MS) return;
    this.lastReported.set(keyId, now);
    this.pending.set(keyId, new Date(now).toISOString());
  }

  flush(): void {
    if (this.pending.size === 0) return;
    const uses = [...this.pending].map(([id, at]) => ({ id, at }));
    this.pending = new Map();
    this.rpc.emit(KEYS.USED, { uses });
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
    this.flush();
  }
}
