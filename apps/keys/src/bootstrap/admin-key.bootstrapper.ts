import { Inject, Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { hashApiKeySecret, lastSixOf } from '@svc/auth';
import { RpcClient } from '@svc/messaging';
import { KEYS_CONFIG, KeysConfig } from '../config';
import { BootstrapCredit } from './bootstrap-credit';
import { BootstrapOutcome, BootstrapRepository, BootstrapResult } from './bootstrap.repository';

export const BOOTSTRAP_ACCOUNT_NAME = 'bootstrap';
/**
 * On a fresh install, how long boot waits for billing to credit the new account, so the first
 * request after `npm start` reports ready finds its credits. Later boots ask in the background.
 */
const FIRST_CREDIT_WAIT_MS = 2_000;

/**
 * Makes SVC_ADMIN_KEY a working ADMIN key, so a fresh install can create accounts and keys.
 * Runs after migrations (onModuleInit) and before handlers subscribe. A bootstrap key that an
 * operator revoked stays revoked: restarting must never undo a revocation.
 */
@Injectable()
export class AdminKeyBootstrapper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(AdminKeyBootstrapper.name);
  private readonly credit: BootstrapCredit;

  constructor(
    private readonly repository: BootstrapRepository,
    @Inject(KEYS_CONFIG) private readonly config: Pick<KeysConfig, 'SVC_ADMIN_KEY'>,
    rpc: RpcClient,
  ) {
    this.credit = new BootstrapCredit(rpc);
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.SVC_ADMIN_KEY) return;
    const { outcome, accountId } = await this.ensureKey(this.config.SVC_ADMIN_KEY);
    // SVC_BOOTSTRAP_CREDITS_USD, credited once ever by billing (a revoked key's account gets nothing new).
    // A restart asks once (billing answers at once when it is up), then in the background.
    if (outcome !== 'revoked') await this.credit.request(accountId, outcome === 'created' ? FIRST_CREDIT_WAIT_MS : 0);
  }

  onModuleDestroy(): void {
    this.credit.stop();
  }

  async ensure(secret: string): Promise<BootstrapOutcome> {
    return (await this.ensureKey(secret)).outcome;
  }

  private async ensureKey(secret: string): Promise<BootstrapResult> {
    const result = await this.repository.ensureAdminKey({
      accountName: BOOTSTRAP_ACCOUNT_NAME,
      description: 'Bootstrap admin key (SVC_ADMIN_KEY)',
      secretHash: hashApiKeySecret(secret),
      last6: lastSixOf(secret),
    });
    switch (result.outcome) {
      case 'created':
        this.logger.log('created the bootstrap ADMIN key from SVC_ADMIN_KEY');
        break;
      case 'exists':
        this.logger.log('bootstrap ADMIN key already present');
        break;
      case 'revoked':
        this.logger.warn('SVC_ADMIN_KEY matches a revoked key; it stays revoked. Set a new value to bootstrap again.');
        break;
    }
    return result;
  }
}
