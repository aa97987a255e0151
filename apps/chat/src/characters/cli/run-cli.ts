import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { z } from 'zod';
import { Catalog, loadCatalog } from '@svc/catalog';
import { CliIo, reportCliError, UsageError } from '@svc/cli';
import { characterInputSchema } from '@svc/contracts';
import { loadConfig, postgresUrl } from '@svc/config';
import { DomainError, ErrorCode, errorMessage } from '@svc/errors';
import { createChatPrisma } from '../../database/chat-prisma';
import { migrateChatDatabase } from '../../database/chat-migrations';
import { toCharacterView } from '../character.mapper';
import { seedDefaultCharacters } from '../seed-characters';
import { CharactersRepository } from '../characters.repository';
import { OPERATOR, SVC_AUTHOR } from '../character-owner';
import { CharactersService } from '../characters.service';
import { PrismaCharactersRepository } from '../prisma-characters.repository';

export const USAGE = `Usage: node -r ./tools/register-paths.js dist/apps/chat/src/characters/cli/main.js <command>

  characters list [--search <text>]
  characters show <slug>                      (includes the system prompt)
  characters create --slug <slug> --name <name> (--prompt <text> | --prompt-file <path>)
                    [--model <model id>] [--description <text>] [--tags a,b] [--categories a,b]
                    [--adult] [--web-enabled] [--featured]
  characters delete <slug>
  characters seed                             (the shipped public characters, missing slugs only)

The CLI acts as the operator, who owns the shipped characters and those it creates: create
replaces an existing operator's character with the same slug (its id and stats are kept) and
refuses a slug an account owns; delete deletes any character, an account's too. --model
defaults to the catalog's default text model and must be a text model of the catalog
(SVC_CATALOG_PATH). Talks to the chat database directly (CHAT_DATABASE_URL), applying migrations
first, and prints JSON.`;

const configSchema = z.object({ CHAT_DATABASE_URL: postgresUrl('svc_chat'), SVC_CATALOG_PATH: z.string().optional() });
export type CharactersCliConfig = z.infer<typeof configSchema>;

export interface CharactersCliContext {
  repository: CharactersRepository;
  catalog: Catalog;
  close(): Promise<void>;
}

export interface CharactersCliDeps {
  loadConfig: () => CharactersCliConfig;
  open: (config: CharactersCliConfig) => Promise<CharactersCliContext>;
}

const defaultDeps: CharactersCliDeps = {
  loadConfig: () => loadConfig('characters', configSchema),
  open: async (config) => {
    await migrateChatDatabase(config.CHAT_DATABASE_URL);
    const prisma = createChatPrisma(config.CHAT_DATABASE_URL, 2);
    return { repository: new PrismaCharactersRepository(prisma), catalog: loadCatalog(config.SVC_CATALOG_PATH), close: () => prisma.$disconnect() };
  },
};

type Values = Record<string, string | boolean | undefined>;
interface Command {
  options: Record<string, { type: 'string' | 'boolean' }>;
  positionals: number;
  run(ctx: CharactersCliContext, values: Values, positionals: string[]): Promise<unknown>;
}

const list = (v: string | boolean | undefined) =>
  typeof v === 'string'
    ? v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;

function createInput(ctx: CharactersCliContext, v: Values) {
  if (v.prompt !== undefined && v['prompt-file'] !== undefined) throw new UsageError('give --prompt or --prompt-file, not both');
  const systemPrompt = typeof v['prompt-file'] === 'string' ? readFileSync(v['prompt-file'], 'utf8') : v.prompt;
  const requestedModel = typeof v.model === 'string' ? v.model : (ctx.catalog.traits('text').default ?? '');
  const model = ctx.catalog.resolve(requestedModel, 'text');
  if (!model) throw new UsageError(`--model: "${requestedModel}" is not a text model of the catalog`);
  const parsed = characterInputSchema.safeParse({
    slug: v.slug,
    name: v.name,
    description: v.description ?? null,
    systemPrompt,
    modelId: model.id,
    tags: list(v.tags),
    categories: list(v.categories),
    adult: v.adult === true,
    webEnabled: v['web-enabled'] === true,
    featured: v.featured === true,
  });
  if (!parsed.success)
    throw new UsageError(parsed.error.issues.map((i) => `--${String(i.path[0]).replace('systemPrompt', 'prompt')}: ${i.message}`).join('\n'));
  return parsed.data;
}

const COMMANDS: Record<string, Command> = {
  'characters list': {
    options: { search: { type: 'string' } },
    positionals: 0,
    run: async (ctx, v) => {
      const page = await ctx.repository.list({
        sortBy: 'mostRecent',
        sortOrder: 'desc',
        limit: 100,
        offset: 0,
        ...(typeof v.search === 'string' ? { search: v.search } : {}),
      });
      return { total: page.total, data: page.rows.map((c) => ({ slug: c.slug, name: c.name, modelId: c.modelId, featured: c.featured, adult: c.adult })) };
    },
  },
  'characters show': {
    options: {},
    positionals: 1,
    run: async (ctx, _v, [slug]) => {
      const character = await ctx.repository.findBySlug(slug);
      if (!character) throw new DomainError(ErrorCode.NotFound, `Character "${slug}" not found.`);
      return {
        ...toCharacterView(character),
        systemPrompt: character.systemPrompt,
        categories: character.categories,
        ownerAccountId: character.ownerAccountId,
      };
    },
  },
  'characters create': {
    options: {
      slug: { type: 'string' },
      name: { type: 'string' },
      prompt: { type: 'string' },
      'prompt-file': { type: 'string' },
      model: { type: 'string' },
      description: { type: 'string' },
      tags: { type: 'string' },
      categories: { type: 'string' },
      adult: { type: 'boolean' },
      'web-enabled': { type: 'boolean' },
      featured: { type: 'boolean' },
    },
    positionals: 0,
    run: async (ctx, v) => (await new CharactersService(ctx.repository).create(createInput(ctx, v), OPERATOR)).data,
  },
  'characters delete': {
    options: {},
    positionals: 1,
    run: (ctx, _v, [slug]) => new CharactersService(ctx.repository).delete(slug, OPERATOR),
  },
  'characters seed': {
    options: {},
    positionals: 0,
    run: async (ctx) => ({ created: await seedDefaultCharacters(ctx.repository, ctx.catalog), author: SVC_AUTHOR }),
  },
};

/** Runs one command; returns the exit code (0 ok, 1 failed, 2 bad command line or config). */
export async function runCharactersCli(argv: string[], io: CliIo, deps: CharactersCliDeps = defaultDeps): Promise<number> {
  if (argv.length === 0 || argv.some((a) => a === '--help' || a === '-h' || a === 'help')) {
    io.out(USAGE);
    return argv.length === 0 ? 2 : 0;
  }
  try {
    const name = argv.slice(0, 2).join(' ');
    const command = COMMANDS[name];
    if (!command) throw new UsageError(`Unknown command: ${name}`, true);
    let parsed: { values: Values; positionals: string[] };
    try {
      parsed = parseArgs({ args: argv.slice(2), options: command.options, allowPositionals: true, strict: true }) as typeof parsed;
    } catch (err) {
      throw new UsageError(errorMessage(err), true);
    }
    if (parsed.positionals.length !== command.positionals)
      throw new UsageError(command.positionals ? 'Expected <slug>' : 'Expected no positional arguments', true);
    const ctx = await deps.open(deps.loadConfig());
    try {
      io.out(JSON.stringify(await command.run(ctx, parsed.values, parsed.positionals), null, 2));
    } finally {
      await ctx.close();
    }
    return 0;
  } catch (err) {
    return reportCliError(err, io, { usage: USAGE, helpCommand: 'characters --help' });
  }
}
