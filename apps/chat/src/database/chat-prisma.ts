import { createPrismaClient } from '@svc/database';
import { PrismaClient } from '../generated/prisma/client';

export type ChatPrisma = PrismaClient;
export const CHAT_PRISMA = Symbol('CHAT_PRISMA');

export function createChatPrisma(url: string, poolMax = 5): ChatPrisma {
  return createPrismaClient(PrismaClient, url, { poolMax });
}
