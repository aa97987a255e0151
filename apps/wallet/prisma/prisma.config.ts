import { defineConfig } from 'prisma/config';

// Read by the Prisma CLI only (migrate diff; migrate deploy where the engine binary exists).
export default defineConfig({
  schema: 'schema.prisma',
  migrations: { path: 'migrations' },
  datasource: { url: process.env.WALLET_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/svc_wallet' },
});
