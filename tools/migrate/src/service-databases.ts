import { ServiceName } from '@svc/contracts';

/** A service that owns a Postgres database with committed migrations in apps/<service>/prisma/migrations. */
export interface ServiceDatabase {
  service: ServiceName;
  /** The service's own variable for its database URL; the same one it reads at boot. */
  urlEnv: string;
  defaultDatabase: string;
}

export const SERVICE_DATABASES: readonly ServiceDatabase[] = [
  { service: 'keys', urlEnv: 'KEYS_DATABASE_URL', defaultDatabase: 'svc_keys' },
  { service: 'billing', urlEnv: 'BILLING_DATABASE_URL', defaultDatabase: 'svc_billing' },
  { service: 'chat', urlEnv: 'CHAT_DATABASE_URL', defaultDatabase: 'svc_chat' },
  { service: 'wallet', urlEnv: 'WALLET_DATABASE_URL', defaultDatabase: 'svc_wallet' },
];
