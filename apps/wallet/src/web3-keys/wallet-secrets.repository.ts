import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { WALLET_DB, WalletDb } from '../database/wallet-db';

/** Secrets every replica shares, created once by whichever asks first (wallet_secrets). */
@Injectable()
export class WalletSecretsRepository {
  private readonly cache = new Map<string, Promise<Buffer>>();

  constructor(@Inject(WALLET_DB) private readonly db: WalletDb) {}

  get(name: string): Promise<Buffer> {
    let secret = this.cache.get(name);
    if (!secret) {
      secret = this.load(name);
      this.cache.set(name, secret);
      secret.catch(() => this.cache.delete(name));
    }
    return secret;
  }

  private async load(name: string): Promise<Buffer> {
    await this.db.query('INSERT INTO wallet_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [name, randomBytes(32)]);
    const { rows } = await this.db.query<{ value: Buffer }>('SELECT value FROM wallet_secrets WHERE name = $1', [name]);
    return rows[0].value;
  }
}
