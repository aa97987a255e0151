import { PrismaPg } from '@prisma/adapter-pg';

export interface PrismaClientOptions {
  /** Connections in the pool (pg's default is 10). */
  poolMax?: number;
  connectionTimeoutMs?: number;
}

/**
 * Bounds on interactive transactions (`$transaction(async (tx) => ...)`). Prisma's defaults (2 s
 * to get a connection, 5 s in all) count event-loop time too, so a short transaction on a busy
 * machine (an operator CLI beside a loaded platform) failed as "Transaction already closed".
 * Ours lock one row and write a few: these bounds only stop a stuck one.
 */
export const TRANSACTION_OPTIONS = { maxWait: 10_000, timeout: 20_000 } as const;

/** Any generated Prisma client class: constructed with a driver adapter, no native engine. */
export type PrismaClientClass<T> = new (options: { adapter: PrismaPg; transactionOptions: typeof TRANSACTION_OPTIONS }) => T;

/** A generated Prisma client talking to Postgres through `pg` (pure JS, works offline). */
export function createPrismaClient<T>(Client: PrismaClientClass<T>, url: string, options: PrismaClientOptions = {}): T {
  const adapter = new PrismaPg({ connectionString: url, max: options.poolMax ?? 10, connectionTimeoutMillis: options.connectionTimeoutMs ?? 5_000 });
  return new Client({ adapter, transactionOptions: TRANSACTION_OPTIONS });
}

/** A health check for `HEALTH_CHECKS`: 'ok' when `SELECT 1` answers. */
export function databaseHealthCheck(client: { $queryRaw: (query: TemplateStringsArray) => Promise<unknown> }): () => Promise<string> {
  return async () => {
    await client.$queryRaw`SELECT 1`;
    return 'ok';
  };
}
