import { createPrismaClient } from './prisma-client';

describe('createPrismaClient', () => {
  it('gives interactive transactions room beyond Prisma’s 2 s / 5 s defaults (a busy machine timed them out)', () => {
    const seen: unknown[] = [];
    class FakeClient {
      constructor(options: unknown) {
        seen.push(options);
      }
    }
    createPrismaClient(FakeClient, 'postgresql://u:p@127.0.0.1:1/db');
    expect(seen[0]).toMatchObject({ transactionOptions: { maxWait: 10_000, timeout: 20_000 } });
  });
});
