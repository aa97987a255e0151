import { z } from 'zod';
import { loadConfig, postgresUrl } from '@svc/config';
import { MigrateResult, runMigrations, serviceMigrationsDir } from '@svc/database';
import { ServiceName } from '@svc/contracts';
import { SERVICE_DATABASES, ServiceDatabase } from './service-databases';

export interface MigrateAllOptions {
  env?: NodeJS.ProcessEnv;
  /** Only these services (default: every service with a database). */
  services?: ServiceName[];
  lockTimeoutMs?: number;
  log?: (message: string) => void;
}

export interface ServiceMigrateResult extends MigrateResult {
  service: ServiceName;
}

export function databaseUrlOf(target: ServiceDatabase, env: NodeJS.ProcessEnv = process.env): string {
  const schema = z.object({ [target.urlEnv]: postgresUrl(target.defaultDatabase) });
  return loadConfig('migrate', schema, env)[target.urlEnv] as string;
}

/** Creates each service database when missing and applies its pending migrations, in list order. */
export async function migrateAll(options: MigrateAllOptions = {}): Promise<ServiceMigrateResult[]> {
  const targets = SERVICE_DATABASES.filter((t) => !options.services || options.services.includes(t.service));
  const results: ServiceMigrateResult[] = [];
  for (const target of targets) {
    const result = await runMigrations({
      databaseUrl: databaseUrlOf(target, options.env),
      migrationsDir: serviceMigrationsDir(target.service),
      lockTimeoutMs: options.lockTimeoutMs,
      log: options.log && ((message) => options.log?.(`[${target.service}] ${message}`)),
    });
    results.push({ service: target.service, ...result });
  }
  return results;
}
