import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { hashApiKeySecret, lastSixOf } from '@svc/auth';
import { KEYS_CONFIG, KeysConfig } from '../config';
import { BootstrapOutcome, BootstrapRepository } from './bootstrap.repository';

export const BOOTSTRAP_ACCOUNT_NAME = 'bootstrap';

/**
 * Makes SVC_ADMIN_KEY a working ADMIN key, so a fresh install can create accounts and keys.
 * Runs after migrations (onModuleInit) and before handlers subscribe. A bootstrap key that an
 * operator revoked stays revoked: restarting must never undo a revocation.
 */
@Injectable()
export class AdminKeyBootstrapper implements OnApplicationBootstrap {
  private readonly logger = new Logger(AdminKeyBootstrapper.name);

  constructor(
    private readonly repository: BootstrapRepository,
    @Inject(KEYS_CONFIG) private readonly config: Pick<KeysConfig, 'SVC_ADMIN_KEY'>,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.SVC_ADMIN_KEY) await this.ensure(this.config.SVC_ADMIN_KEY);
  }

  async ensure(secret: string): Promise<BootstrapOutcome> {
    const outcome = await this.repository.ensureAdminKey({
      accountName: BOOTSTRAP_ACCOUNT_NAME,
      description: 'Bootstrap admin key (SVC_ADMIN_KEY)',
      secretHash: hashApiKeySecret(secret),
      last6: lastSixOf(secret),
    });
    switch (outcome) {
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
    return outcome;
  }
}
