import { Inject, Injectable } from '@nestjs/common';
import { WALLET_DB, WalletDb } from '../database/wallet-db';
import { WalletAccount, WalletNetwork } from './wallet-accounts';

/** pg_advisory_xact_lock(class, key): the class keeps these locks apart from any other advisory lock. */
const ENSURE_LOCK_CLASS = 0x5741_4c54; // 'WALT'

@Injectable()
export class WalletAccountsRepository {
  constructor(@Inject(WALLET_DB) private readonly db: WalletDb) {}

  async find(address: string, network: WalletNetwork): Promise<WalletAccount | null> {
    const { rows } = await this.db.query<{ account_id: string }>({
      name: 'wallet_account_find',
      text: 'SELECT account_id FROM wallet_accounts WHERE network = $1 AND address = $2',
      values: [network, address],
    });
    return rows[0] ? { accountId: rows[0].account_id, address, network } : null;
  }

  /**
   * The wallet's account, or the one `create()` makes, under a per-wallet lock held until the row
   * is committed: two first sign-ins at once (on any replica) make one account, and the loser
   * reads the winner's row instead of creating a second account.
   */
  async ensure(address: string, network: WalletNetwork, create: () => Promise<string>): Promise<WalletAccount & { created: boolean }> {
    const client = await this.db.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [ENSURE_LOCK_CLASS, `${network}:${address}`]);
      const { rows } = await client.query<{ account_id: string }>('SELECT account_id FROM wallet_accounts WHERE network = $1 AND address = $2', [
        network,
        address,
      ]);
      if (rows[0]) {
        await client.query('COMMIT');
        return { accountId: rows[0].account_id, address, network, created: false };
      }
      const accountId = await create();
      await client.query('INSERT INTO wallet_accounts (network, address, account_id) VALUES ($1, $2, $3)', [network, address, accountId]);
      await client.query('COMMIT');
      return { accountId, address, network, created: true };
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.release();
    }
  }
}
