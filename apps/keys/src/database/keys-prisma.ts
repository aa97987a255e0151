import { createPrismaClient } from '@svc/database';
import { PrismaClient } from '../generated/prisma/client';

export type KeysPrisma = PrismaClient;
export const KEYS_PRISMA = Symbol('KEYS_PRISMA');

export function createKeysPrisma(url: string, poolMax = 10): KeysPrisma {
  return createPrismaClient(PrismaClient, url, { poolMax });
}
