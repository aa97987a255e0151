import { connect, NatsConnection } from 'nats';
import { RpcClient } from '@svc/messaging';
import { AccountsService } from '../accounts/accounts.service';
import { PrismaAccountsRepository } from '../accounts/accounts.repository';
import { createKeysPrisma } from '../database/keys-prisma';
import { migrateKeysDatabase } from '../database/keys-migrations';
import { KeyEvents, NatsKeyEvents, NoKeyEvents } from '../keys/key-events';
import { KeysRepository } from '../keys/keys.repository';
import { KeysService } from '../keys/keys.service';
import { PrismaKeysRepository } from '../keys/prisma-keys.repository';
import { PrismaRateLimitsRepository } from '../rate-limits/prisma-rate-limits.repository';
import { RateLimitsService } from '../rate-limits/rate-limits.service';
import { CliConfig } from './cli-config';

/** The service's own classes wired by hand against svc_keys: works while the platform is down. */
export interface CliContext {
  keys: KeysService;
  keysRepository: KeysRepository;
  accounts: AccountsService;
  rateLimits: RateLimitsService;
  /** False when NATS was unreachable, so gateways were not told about a revocation. */
  eventsDelivered: boolean;
  close(): Promise<void>;
}

export async function openCliContext(config: CliConfig, options: { withEvents: boolean }): Promise<CliContext> {
  await migrateKeysDatabase(config.KEYS_DATABASE_URL);
  const prisma = createKeysPrisma(config.KEYS_DATABASE_URL, 2);
  const nc = options.withEvents ? await connectOrNull(config.NATS_URL) : null;
  const events: KeyEvents = nc ? new NatsKeyEvents(new RpcClient(nc, 2_000)) : new NoKeyEvents();
  const keysRepository = new PrismaKeysRepository(prisma);
  const rateLimitsRepository = new PrismaRateLimitsRepository(prisma);
  return {
    keys: new KeysService(keysRepository, events, rateLimitsRepository),
    keysRepository,
    rateLimits: new RateLimitsService(rateLimitsRepository, keysRepository, events),
    accounts: new AccountsService(new PrismaAccountsRepository(prisma)),
    eventsDelivered: nc !== null,
    close: async () => {
      await nc?.drain().catch(() => undefined);
      await prisma.$disconnect();
    },
  };
}

async function connectOrNull(url: string): Promise<NatsConnection | null> {
  try {
    return await connect({ servers: url.split(','), name: 'svc-cli', timeout: 1_500, reconnect: false });
  } catch {
    return null;
  }
}
