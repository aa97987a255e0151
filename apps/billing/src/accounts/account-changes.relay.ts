import { Inject, Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Client } from 'pg';
import { BILLING } from '@svc/contracts';
import { Logger } from '@svc/logging';
import { RpcClient } from '@svc/messaging';
import { BILLING_CONFIG, BillingConfig } from '../config';
import { BILLING_LOGGER } from '../shared/logger.token';
import { errorMessage } from '@svc/errors';

/** The channel the migration's trigger notifies on (20261125090000_account_changed_notify). */
export const ACCOUNT_CHANGED_CHANNEL = 'billing_account_changed';
const RECONNECT_MS = 1_000;

/**
 * Relays Postgres' account-change notifications to the gateways (BILLING.ACCOUNT_CHANGED), so a
 * lower DIEM stake or a new consumption order stops admissions under credit leases at once,
 * whoever made the change (this service or the operator's CLI). Every replica relays: a gateway
 * retiring an account's leases twice changes nothing. While the listening connection is down,
 * leases still end on their own within BILLING_LEASE_ADMIT_MS.
 */
@Injectable()
export class AccountChangesRelay implements OnApplicationBootstrap, OnApplicationShutdown {
  private client: Client | null = null;
  private retry: NodeJS.Timeout | null = null;
  private stopped = false;

  constructor(
    private readonly rpc: RpcClient,
    @Inject(BILLING_CONFIG) private readonly config: Pick<BillingConfig, 'BILLING_DATABASE_URL'>,
    @Inject(BILLING_LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.listen();
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    await this.client?.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    const client = new Client({ connectionString: this.config.BILLING_DATABASE_URL, application_name: 'svc-billing-listen' });
    client.on('notification', (message) => {
      if (message.channel === ACCOUNT_CHANGED_CHANNEL && message.payload) this.rpc.emit(BILLING.ACCOUNT_CHANGED, { accountId: message.payload });
    });
    client.on('error', (err) => this.reconnect(client, err));
    client.on('end', () => this.reconnect(client, null));
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${ACCOUNT_CHANGED_CHANNEL}`);
    } catch (err) {
      this.reconnect(client, err);
    }
  }

  private reconnect(client: Client, err: unknown): void {
    if (this.stopped || client !== this.client) return;
    this.client = null;
    client.end().catch(() => undefined);
    if (err) this.logger.warn({ err: errorMessage(err) }, 'account-change listener lost its connection; reconnecting');
    this.retry = setTimeout(() => {
      this.retry = null;
      void this.listen();
    }, RECONNECT_MS);
    this.retry.unref();
  }
}
