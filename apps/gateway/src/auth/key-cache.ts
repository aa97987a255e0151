import { Inject, Injectable, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { NatsConnection, Subscription } from 'nats';
import { AuthenticatedKey, KEYS, KeysRevokedEvent } from '@svc/contracts';
import { decodeJson, NATS_CONNECTION, NestEventPacket, QUICK_CALL_IDLE_MS, retryIfUnavailable, RpcClient } from '@svc/messaging';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';

type Entry = { key: AuthenticatedKey | null };

/**
 * Keys by secret hash, so the hot path does not reach the keys service (or Postgres) on every
 * request. Entries live AUTH_CACHE_TTL_MS; revocations broadcast by the keys service evict at
 * once. Concurrent misses for one hash share a single lookup.
 */
@Injectable()
export class KeyCache implements OnModuleInit, OnModuleDestroy {
  private readonly cache: LRUCache<string, Entry>;
  private readonly inflight = new Map<string, Promise<AuthenticatedKey | null>>();
  private readonly hashById = new Map<string, string>();
  private sub?: Subscription;

  constructor(
    private readonly rpc: RpcClient,
    @Inject(NATS_CONNECTION) private readonly nc: NatsConnection,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    this.cache = new LRUCache<string, Entry>({
      max: config.AUTH_CACHE_MAX,
      ttl: config.AUTH_CACHE_TTL_MS,
      dispose: (entry) => entry.key && this.hashById.delete(entry.key.id),
    });
  }

  onModuleInit(): void {
    this.sub = this.nc.subscribe(KEYS.REVOKED, {
      callback: (_err, msg) => {
        const { data } = decodeJson<NestEventPacket<KeysRevokedEvent>>(msg.data);
        for (const id of data.ids) this.evict(id);
      },
    });
  }

  onModuleDestroy(): void {
    this.sub?.unsubscribe();
  }

  async lookup(secretHash: string, requestId: string): Promise<AuthenticatedKey | null> {
    const hit = this.cache.get(secretHash);
    if (hit) return hit.key;
    let pending = this.inflight.get(secretHash);
    if (!pending) {
      pending = this.fetch(secretHash, requestId);
      this.inflight.set(secretHash, pending);
    }
    return pending;
  }

  evict(keyId: string): void {
    const hash = this.hashById.get(keyId);
    if (hash) this.cache.delete(hash);
  }

  private async fetch(secretHash: string, requestId: string): Promise<AuthenticatedKey | null> {
    try {
      const { key } = await retryIfUnavailable(() =>
        this.rpc.send(KEYS.VERIFY, { secretHash }, { requestId, timeoutMs: 5_000, idleTimeoutMs: QUICK_CALL_IDLE_MS }),
      );
      this.cache.set(secretHash, { key });
      if (key) this.hashById.set(key.id, secretHash);
      return key;
    } finally {
      this.inflight.delete(secretHash);
    }
  }
}
