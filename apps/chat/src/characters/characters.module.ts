import { DynamicModule, Inject, Injectable, Module, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { Catalog } from '@svc/catalog';
import { redactUrl } from '@svc/database';
import { Logger } from '@svc/logging';
import { ChatConfig } from '../config';
import { CHAT_PRISMA, ChatPrisma, createChatPrisma } from '../database/chat-prisma';
import { migrateChatDatabase } from '../database/chat-migrations';
import { CharactersHandler } from './characters.handler';
import { CHARACTERS_REPOSITORY, CharactersRepository } from './characters.repository';
import { CharactersService } from './characters.service';
import { PrismaCharactersRepository } from './prisma-characters.repository';
import { seedDefaultCharacters } from './seed-characters';
import { errorMessage } from '@svc/errors';

const OPTIONS = Symbol('CHARACTERS_OPTIONS');

interface CharactersOptions {
  config: ChatConfig;
  logger: Logger;
  catalog: Catalog;
}

/**
 * Migrates and seeds before the service subscribes (Nest awaits onModuleInit). A database that
 * is down does not stop chat completions: the failure is logged and character requests fail
 * with 503 until the database answers.
 */
@Injectable()
class CharactersLifecycle implements OnModuleInit, OnApplicationShutdown {
  constructor(
    @Inject(OPTIONS) private readonly options: CharactersOptions,
    @Inject(CHAT_PRISMA) private readonly prisma: ChatPrisma,
    @Inject(CHARACTERS_REPOSITORY) private readonly repository: CharactersRepository,
  ) {}

  async onModuleInit(): Promise<void> {
    const { config, logger, catalog } = this.options;
    const database = redactUrl(config.CHAT_DATABASE_URL);
    try {
      if (config.CHAT_MIGRATE_ON_BOOT) {
        const result = await migrateChatDatabase(config.CHAT_DATABASE_URL, (message) => logger.info({ database }, message));
        logger.info({ database, applied: result.applied.length, alreadyApplied: result.alreadyApplied.length }, 'chat database migrated');
      }
      if (config.CHAT_SEED_CHARACTERS) logger.info({ created: await seedDefaultCharacters(this.repository, catalog) }, 'default characters seeded');
    } catch (err) {
      logger.error({ database, err: errorMessage(err) }, 'chat database unavailable: characters will fail until it answers');
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.prisma.$disconnect();
  }
}

@Module({})
export class CharactersModule {
  static forConfig(config: ChatConfig, logger: Logger, catalog: Catalog): DynamicModule {
    return {
      module: CharactersModule,
      controllers: [CharactersHandler],
      providers: [
        { provide: OPTIONS, useValue: { config, logger, catalog } },
        { provide: CHAT_PRISMA, useFactory: () => createChatPrisma(config.CHAT_DATABASE_URL, config.CHAT_DB_POOL_MAX) },
        { provide: CHARACTERS_REPOSITORY, useFactory: (prisma: ChatPrisma) => new PrismaCharactersRepository(prisma), inject: [CHAT_PRISMA] },
        CharactersService,
        CharactersLifecycle,
      ],
      exports: [CharactersService],
    };
  }
}
