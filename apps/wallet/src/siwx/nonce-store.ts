import { Inject, Injectable, Logger, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { WALLET_DB, WalletDb } from '../database/wallet-db';

const SWEEP_INTERVAL_MS = 60_000;
const SWEEP_BATCH = 10_000;

/**
 * Spent nonces, in Postgres: a nonce is accepted once per wallet (and scope) for as long as the
 * message carrying it could be accepted, then swept. Postgres rather than Redis: a spent nonce
 * must survive a restart or eviction, or a captured header could be replayed within its validity
 * window (Redis here keeps nothing on disk); the primary key makes the spend atomic across
 * replicas in one statement (bench/wallet measures what that costs per request).
 */
@Injectable()
export class NonceStore implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(NonceStore.name);
  private timer?: NodeJS.Timeout;

  constructor(@Inject(WALLET_DB) private readonly db: WalletDb) {}

  onModuleInit(): void {
    this.timer = setInterval(() => void this.sweep().catch((err: Error) => this.logger.warn(`nonce sweep failed: ${err.message}`)), SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** True the first time; false when this nonce was spent before (a replay). */
  async spend(scope: string, address: string, nonce: string, expiresAt: number): Promise<boolean> {
    const { rowCount } = await this.db.query({
      name: 'wallet_nonce_spend',
      text: 'INSERT INTO used_nonces (scope, address, nonce, expires_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING',
      values: [scope, address, nonce, new Date(expiresAt)],
    });
    return rowCount === 1;
  }

  /** Deletes nonces whose messages can no longer be accepted anyway; returns how many. */
  async sweep(): Promise<number> {
    const { rowCount } = await this.db.query('DELETE FROM used_nonces WHERE ctid IN (SELECT ctid FROM used_nonces WHERE expires_at < now() LIMIT $1)', [
      SWEEP_BATCH,
    ]);
    return rowCount ?? 0;
  }
}
