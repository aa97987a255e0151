import { defineConfig } from 'prisma/config';

// Read by the Prisma CLI only (generate; migrate where the engine binary exists).
export default defineConfig({
  schema: 'schema.prisma',
  migrations: { path: 'migrations' },
  datasource: { url: process.env.CHAT_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/svc_chat' },
});
