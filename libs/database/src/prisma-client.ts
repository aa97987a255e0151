import { PrismaPg } from '@prisma/adapter-pg';

export interface PrismaClientOptions {
  /** Connections in the pool (pg's default is 10). */
  poolMax?: number;
  connectionTimeoutMs?: number;
}

/** Any generated Prisma client class: constructed with a driver adapter, no native engine. */
export type PrismaClientClass<T> = new (options: { adapter: PrismaPg }) => T;

/** A generated Prisma client talking to Postgres through `pg` (pure JS, works offline). */
export function createPrismaClient<T>(Client: PrismaClientClass<T>, url: string, options: PrismaClientOptions = {}): T {
  const adapter = new PrismaPg({ connectionString: url, max: options.poolMax ?? 10, connectionTimeoutMillis: options.connectionTimeoutMs ?? 5_000 });
  return new Client({ adapter });
}

/** A health check for `HEALTH_CHECKS`: 'ok' when `SELECT 1` answers. */
export function databaseHealthCheck(client: { $queryRaw: (query: TemplateStringsArray) => Promise<unknown> }): () => Promise<string> {
  return async () => {
    await client.$queryRaw`SELECT 1`;
    return 'ok';
  };
}
