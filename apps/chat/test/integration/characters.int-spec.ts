import { Catalog } from '@svc/catalog';
import { CharacterInput, ListCharactersRequest } from '@svc/contracts';
import { DomainError } from '@svc/errors';
import { createTestDatabase, TestDatabase } from '@svc/testing';
import { OPERATOR } from '../../src/characters/character-owner';
import { seedDefaultCharacters } from '../../src/characters/seed-characters';
import { CharactersService } from '../../src/characters/characters.service';
import { DEFAULT_CHARACTERS } from '../../src/characters/default-characters';
import { PrismaCharactersRepository } from '../../src/characters/prisma-characters.repository';
import { ChatPrisma, createChatPrisma } from '../../src/database/chat-prisma';
import { chatMigrationsDir } from '../../src/database/chat-migrations';

/** Characters against a fresh, migrated svc_chat database: filters, sort modes, pagination, reviews, owners, seeding. */
let db: TestDatabase;
let prisma: ChatPrisma;
let repository: PrismaCharactersRepository;
let service: CharactersService;

const ACCOUNT_A = '11111111-1111-4111-8111-111111111111';
const ACCOUNT_B = '22222222-2222-4222-8222-222222222222';

const catalog = { traits: () => ({ default: 'svc-zoo-chat' }), ofType: () => [] } as unknown as Catalog;

const character = (slug: string, over: Partial<CharacterInput> = {}): CharacterInput => ({
  slug,
  name: slug.replace(/-/g, ' '),
  description: `About ${slug}`,
  systemPrompt: `You are ${slug}.`,
  modelId: 'svc-zoo-chat',
  tags: [],
  categories: [],
  adult: false,
  webEnabled: false,
  featured: false,
  ...over,
});

const query = (over: Partial<ListCharactersRequest> = {}): ListCharactersRequest => ({
  sortBy: 'mostRecent',
  sortOrder: 'desc',
  limit: 50,
  offset: 0,
  ...over,
});
const slugs = async (over: Partial<ListCharactersRequest> = {}) => (await service.list(query(over))).data.map((c) => c.slug);

beforeAll(async () => {
  db = await createTestDatabase('chat_characters', { migrationsDir: chatMigrationsDir() });
  prisma = createChatPrisma(db.url, 2);
  repository = new PrismaCharactersRepository(prisma);
  service = new CharactersService(repository);
  // Created one by one so created_at orders them: alpha oldest, delta newest.
  await service.create(
    character('alpha', { tags: ['Philosophy', 'Stoicism'], categories: ['philosophy'], featured: true, description: 'A calm thinker' }),
    OPERATOR,
  );
  await service.create(character('bravo', { tags: ['Humor'], categories: ['humor', 'writing'], adult: true, modelId: 'other-model' }), OPERATOR);
  await service.create(
    character('charlie', { tags: ['Fiction', 'Roleplay'], categories: ['roleplay'], webEnabled: true, name: 'Charlie the 100% Storyteller' }),
    OPERATOR,
  );
  await service.create(character('delta', { tags: ['Helpful'], categories: ['assistant'] }), OPERATOR);
  await prisma.$executeRaw`UPDATE characters SET imports = CASE slug WHEN 'alpha' THEN 5 WHEN 'bravo' THEN 50 WHEN 'charlie' THEN 1 ELSE 0 END`;
  // Ratings: bravo one 5-star; charlie many 4s and 5s; alpha two 3s; delta none.
  await service.addReview('bravo', { rating: 5, message: 'Perfect', username: 'u1', locale: 'en' }, ACCOUNT_A);
  for (const rating of [5, 5, 4, 5, 4, 5]) await service.addReview('charlie', { rating, message: null, username: 'fan', locale: null }, ACCOUNT_A);
  for (const rating of [3, 3]) await service.addReview('alpha', { rating, message: 'ok', username: 'critic', locale: 'de' }, ACCOUNT_B);
}, 60_000);

afterAll(async () => {
  await prisma?.$disconnect();
  await db?.drop();
});

describe('characters', () => {
  it('returns the public view, never the system prompt', async () => {
    const { data } = await service.get('charlie');
    expect(data).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      slug: 'charlie',
      name: 'Charlie the 100% Storyteller',
      description: 'About charlie',
      modelId: 'svc-zoo-chat',
      tags: ['Fiction', 'Roleplay'],
      adult: false,
      webEnabled: true,
      featured: false,
      author: 'svc',
      shareUrl: null,
      photoUrl: null,
      stats: { averageRating: 4.67, imports: 1, ratingCount: 6, ratingSum: 28, userRating: null },
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: expect.stringMatching(/Z$/),
    });
    expect(JSON.stringify(data)).not.toContain('You are charlie');
    expect(await service.persona('charlie')).toEqual({ systemPrompt: 'You are charlie.', modelId: 'svc-zoo-chat' });
  });

  it('is NOT_FOUND for an unknown slug (get, reviews, delete) and null as a persona', async () => {
    for (const call of [
      () => service.get('nobody'),
      () => service.reviews({ slug: 'nobody', page: 1, pageSize: 5 }),
      () => service.delete('nobody', OPERATOR),
    ]) {
      await expect(call()).rejects.toEqual(expect.objectContaining({ code: 'NOT_FOUND' }));
      await expect(call()).rejects.toBeInstanceOf(DomainError);
    }
    expect(await service.persona('nobody')).toBeNull();
  });

  it('filters by tags, categories, model, adult, web-enabled and pro, case-insensitively', async () => {
    expect(await slugs({ tags: ['philosophy'] })).toEqual(['alpha']);
    expect(await slugs({ tags: ['HUMOR', 'roleplay'] })).toEqual(['charlie', 'bravo']);
    expect(await slugs({ categories: ['Writing'] })).toEqual(['bravo']);
    expect(await slugs({ modelIds: ['other-model'] })).toEqual(['bravo']);
    expect(await slugs({ isAdult: true })).toEqual(['bravo']);
    expect(await slugs({ isAdult: false, isWebEnabled: true })).toEqual(['charlie']);
    expect(await slugs({ isPro: true })).toEqual([]);
    expect(await slugs({ isPro: false })).toHaveLength(4);
  });

  it('searches name, description and tags, with #tag for an exact tag and LIKE characters taken literally', async () => {
    expect(await slugs({ search: 'calm' })).toEqual(['alpha']);
    expect(await slugs({ search: 'stoic' })).toEqual(['alpha']);
    expect(await slugs({ search: '#Fiction' })).toEqual(['charlie']);
    expect(await slugs({ search: '#fict' })).toEqual([]);
    expect(await slugs({ search: '100%' })).toEqual(['charlie']);
    expect(await slugs({ search: '%' })).toEqual(['charlie']);
    expect(await slugs({ search: '_' })).toEqual([]);
  });

  it('sorts by every discovery mode, both directions', async () => {
    expect(await slugs({ sortBy: 'mostRecent' })).toEqual(['delta', 'charlie', 'bravo', 'alpha']);
    expect(await slugs({ sortBy: 'mostRecent', sortOrder: 'asc' })).toEqual(['alpha', 'bravo', 'charlie', 'delta']);
    expect(await slugs({ sortBy: 'imports' })).toEqual(['bravo', 'alpha', 'charlie', 'delta']);
    expect(await slugs({ sortBy: 'featured' })).toEqual(['alpha', 'bravo', 'charlie', 'delta']);
    expect(await slugs({ sortBy: 'ratingCount' })).toEqual(['charlie', 'alpha', 'bravo', 'delta']);
    expect(await slugs({ sortBy: 'highestRating' })).toEqual(['bravo', 'charlie', 'alpha', 'delta']);
    // One 5-star rating does not beat six ratings averaging 4.67 once smoothed; two 3s tie with none, more ratings first.
    expect(await slugs({ sortBy: 'highlyRated' })).toEqual(['charlie', 'bravo', 'alpha', 'delta']);
    await prisma.$executeRaw`UPDATE characters SET created_at = now() - interval '200 days' WHERE slug = 'charlie'`;
    expect(await slugs({ sortBy: 'highlyRatedAndRecent' })).toEqual(['bravo', 'delta', 'alpha', 'charlie']);
    await prisma.$executeRaw`UPDATE characters SET created_at = (SELECT created_at FROM characters WHERE slug = 'delta') - interval '1 millisecond' WHERE slug = 'charlie'`;
  });

  it('paginates with limit and offset and reports the total', async () => {
    const first = await service.list(query({ limit: 3, offset: 0 }));
    const second = await service.list(query({ limit: 3, offset: 3 }));
    expect(first.total).toBe(4);
    expect(second.total).toBe(4);
    expect([...first.data, ...second.data].map((c) => c.slug)).toEqual(['delta', 'charlie', 'bravo', 'alpha']);
  });

  it('pages reviews newest first with a summary', async () => {
    const page1 = await service.reviews({ slug: 'charlie', page: 1, pageSize: 4 });
    const page2 = await service.reviews({ slug: 'charlie', page: 2, pageSize: 4 });
    expect(page1.total).toBe(6);
    expect(page1.data).toHaveLength(4);
    expect(page2.data).toHaveLength(2);
    expect(page1.summary).toEqual({ averageRating: 4.67, totalReviews: 6 });
    expect(page1.data[0]).toEqual(
      expect.objectContaining({ characterId: (await service.get('charlie')).data.id, username: 'fan', isOwner: false, userAvatarUrl: null }),
    );
    const read = async (accountId?: string) => (await service.reviews({ slug: 'charlie', page: 1, pageSize: 1, accountId })).data[0].isOwner;
    expect([await read(ACCOUNT_A), await read(ACCOUNT_B), await read()]).toEqual([true, false, false]);
    expect(new Set([...page1.data, ...page2.data].map((r) => r.id)).size).toBe(6);
    expect((await service.reviews({ slug: 'delta', page: 1, pageSize: 20 })).summary).toEqual({ averageRating: 0, totalReviews: 0 });
  });

  it("lets an account replace only its own character, keeping id and stats; another owner's slug is a 409", async () => {
    const created = (await service.create(character('echo', { name: 'Echo' }), ACCOUNT_A)).data;
    expect(created.author).toMatch(/^[0-9a-z]{1,5}$/);
    expect(created.author).not.toBe('svc');
    await service.addReview('echo', { rating: 4, message: null, username: 'b', locale: null }, ACCOUNT_B);
    const replaced = (await service.create(character('echo', { name: 'Echo Two' }), ACCOUNT_A)).data;
    expect(replaced).toEqual(
      expect.objectContaining({ id: created.id, name: 'Echo Two', author: created.author, stats: expect.objectContaining({ ratingCount: 1 }) }),
    );

    await expect(service.create(character('echo', { name: 'Stolen' }), ACCOUNT_B)).rejects.toEqual(
      expect.objectContaining({ code: 'CONFLICT', details: { _errors: [], slug: { _errors: [expect.stringMatching(/belongs to another account/)] } } }),
    );
    await expect(service.create(character('delta', { name: 'Stolen' }), ACCOUNT_A)).rejects.toEqual(
      expect.objectContaining({ code: 'CONFLICT', message: expect.stringMatching(/operator's/) }),
    );
    expect((await service.get('echo')).data.name).toBe('Echo Two');
    expect(await service.persona('echo')).toEqual({ systemPrompt: 'You are echo.', modelId: 'svc-zoo-chat' });
    expect((await service.get('delta')).data).toEqual(expect.objectContaining({ name: 'delta', author: 'svc' }));
    await expect(service.create(character('echo', { featured: true }), ACCOUNT_A)).rejects.toEqual(expect.objectContaining({ code: 'FORBIDDEN' }));
  });

  it('gives a new slug to exactly one of two accounts creating it at once', async () => {
    const results = await Promise.allSettled([ACCOUNT_A, ACCOUNT_B, ACCOUNT_A, ACCOUNT_B].map((a) => service.create(character('race', { name: a }), a)));
    const winner = (await service.get('race')).data.name;
    for (const [i, result] of results.entries()) {
      const account = [ACCOUNT_A, ACCOUNT_B][i % 2];
      expect(result.status === 'fulfilled' ? 'ok' : (result.reason as DomainError).code).toBe(account === winner ? 'ok' : 'CONFLICT');
    }
    expect(await service.delete('race', winner)).toEqual({ deleted: true });
  });

  it("refuses to delete another owner's character; the owner and the operator may", async () => {
    const echo = (await service.get('echo')).data;
    await expect(service.delete('echo', ACCOUNT_B)).rejects.toEqual(
      expect.objectContaining({ code: 'FORBIDDEN', message: expect.stringMatching(/another account/) }),
    );
    await expect(service.delete('delta', ACCOUNT_A)).rejects.toEqual(
      expect.objectContaining({ code: 'FORBIDDEN', message: expect.stringMatching(/operator's/) }),
    );
    expect((await service.get('echo')).data.id).toBe(echo.id);
    expect(await service.delete('echo', ACCOUNT_A)).toEqual({ deleted: true });
    expect(await service.persona('echo')).toBeNull();
    expect(await prisma.characterReview.count({ where: { characterId: echo.id } })).toBe(0);
    const alpha = (await service.get('alpha')).data;
    expect(await service.delete('alpha', OPERATOR)).toEqual({ deleted: true });
    expect(await prisma.characterReview.count({ where: { characterId: alpha.id } })).toBe(0);
  });

  it('lets only the author account delete a review, and takes its rating out of the stats', async () => {
    const { data: review } = await service.addReview('bravo', { rating: 1, message: 'meh', username: 'b', locale: null }, ACCOUNT_B);
    expect(review.isOwner).toBe(true);
    expect((await service.get('bravo')).data.stats).toEqual(expect.objectContaining({ ratingCount: 2, ratingSum: 6 }));
    await expect(service.deleteReview('bravo', review.id, ACCOUNT_A)).rejects.toEqual(expect.objectContaining({ code: 'FORBIDDEN' }));
    await expect(service.deleteReview('charlie', review.id, ACCOUNT_B)).rejects.toEqual(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(await service.deleteReview('bravo', review.id, ACCOUNT_B)).toEqual({ deleted: true });
    expect((await service.get('bravo')).data.stats).toEqual(expect.objectContaining({ ratingCount: 1, ratingSum: 5, averageRating: 5 }));
    await expect(service.deleteReview('bravo', review.id, ACCOUNT_B)).rejects.toEqual(expect.objectContaining({ code: 'NOT_FOUND' }));
  });

  it('seeds the shipped characters once, never overwriting an edited one', async () => {
    expect(await seedDefaultCharacters(repository, catalog)).toBe(DEFAULT_CHARACTERS.length);
    await service.create({ ...character('plain-guide'), name: 'Edited by the operator' }, OPERATOR);
    expect(await seedDefaultCharacters(repository, catalog)).toBe(0);
    expect((await service.get('plain-guide')).data.name).toBe('Edited by the operator');
    expect((await service.get('stoic-coach')).data).toEqual(expect.objectContaining({ author: 'svc', modelId: 'svc-zoo-chat' }));
  });
});
