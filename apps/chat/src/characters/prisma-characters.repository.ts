import { CharacterInput, CharacterSort, ListCharactersRequest } from '@svc/contracts';
import { Prisma } from '../generated/prisma/client';
import { ChatPrisma } from '../database/chat-prisma';
import { CharacterOwner } from './character-owner';
import { CharacterRecord, CharacterReviewRecord } from './character.record';
import { CharactersRepository, NewReview } from './characters.repository';

const COLUMNS = Prisma.sql`id::text AS "id", slug, name, description, system_prompt AS "systemPrompt", model_id AS "modelId",
  COALESCE(tags, ARRAY[]::text[]) AS tags, COALESCE(categories, ARRAY[]::text[]) AS categories, adult, web_enabled AS "webEnabled",
  featured, author, owner_account_id::text AS "ownerAccountId", imports, rating_count AS "ratingCount", rating_sum AS "ratingSum", created_at AS "createdAt", updated_at AS "updatedAt"`;

const AVERAGE = Prisma.sql`(CASE WHEN rating_count > 0 THEN rating_sum::float8 / rating_count ELSE 0 END)`;
/** The average pulled toward 3 stars by 3 phantom ratings: a few 5-star ratings do not outrank many 4.8s. */
const SMOOTHED = Prisma.sql`((rating_sum + 9)::float8 / (rating_count + 3))`;
const RECENT = Prisma.sql`(created_at >= now() - interval '90 days')`;

/** ORDER BY keys of each discovery mode; `sortOrder` applies to each key, the slug breaks ties. */
function orderKeys(sort: CharacterSort): Prisma.Sql[] {
  switch (sort) {
    case 'featured':
      return [Prisma.sql`featured`, Prisma.sql`imports`, Prisma.sql`created_at`];
    case 'highestRating':
      return [AVERAGE, Prisma.sql`rating_count`];
    case 'highlyRated':
      return [SMOOTHED, Prisma.sql`rating_count`];
    case 'highlyRatedAndRecent':
      return [RECENT, SMOOTHED, Prisma.sql`created_at`];
    case 'imports':
      return [Prisma.sql`imports`, Prisma.sql`created_at`];
    case 'mostRecent':
      return [Prisma.sql`created_at`];
    case 'ratingCount':
      return [Prisma.sql`rating_count`, AVERAGE];
  }
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);
const lower = (values: string[]) => values.map((v) => v.toLowerCase());

function whereOf(q: ListCharactersRequest): Prisma.Sql {
  const conditions: Prisma.Sql[] = [];
  if (q.categories?.length) conditions.push(Prisma.sql`EXISTS (SELECT 1 FROM unnest(categories) c WHERE lower(c) = ANY(${lower(q.categories)}::text[]))`);
  if (q.tags?.length) conditions.push(Prisma.sql`EXISTS (SELECT 1 FROM unnest(tags) t WHERE lower(t) = ANY(${lower(q.tags)}::text[]))`);
  if (q.modelIds?.length) conditions.push(Prisma.sql`model_id = ANY(${q.modelIds}::text[])`);
  if (q.isAdult !== undefined) conditions.push(Prisma.sql`adult = ${q.isAdult}`);
  if (q.isWebEnabled !== undefined) conditions.push(Prisma.sql`web_enabled = ${q.isWebEnabled}`);
  // The catalog has no pro-only models: every character uses a model any key can call.
  if (q.isPro === true) conditions.push(Prisma.sql`FALSE`);
  const search = q.search?.trim();
  if (search?.startsWith('#') && search.length > 1) {
    conditions.push(Prisma.sql`EXISTS (SELECT 1 FROM unnest(tags) t WHERE lower(t) = ${search.slice(1).toLowerCase()})`);
  } else if (search) {
    const pattern = `%${escapeLike(search)}%`;
    conditions.push(Prisma.sql`(name ILIKE ${pattern} OR description ILIKE ${pattern} OR EXISTS (SELECT 1 FROM unnest(tags) t WHERE t ILIKE ${pattern}))`);
  }
  return conditions.length ? Prisma.sql`WHERE ${Prisma.join(conditions, ' AND ')}` : Prisma.empty;
}

/** Characters in svc_chat. The list query is SQL: case-insensitive array filters and computed sort keys. */
export class PrismaCharactersRepository implements CharactersRepository {
  constructor(private readonly prisma: ChatPrisma) {}

  async list(q: ListCharactersRequest): Promise<{ rows: CharacterRecord[]; total: number }> {
    const where = whereOf(q);
    const direction = q.sortOrder === 'asc' ? Prisma.sql`ASC` : Prisma.sql`DESC`;
    const order = Prisma.join([...orderKeys(q.sortBy).map((key) => Prisma.sql`${key} ${direction}`), Prisma.sql`slug ASC`], ', ');
    const [rows, counted] = await Promise.all([
      this.prisma.$queryRaw<CharacterRecord[]>`SELECT ${COLUMNS} FROM characters ${where} ORDER BY ${order} LIMIT ${q.limit} OFFSET ${q.offset}`,
      this.prisma.$queryRaw<Array<{ total: number }>>`SELECT count(*)::int AS total FROM characters ${where}`,
    ]);
    return { rows, total: counted[0]?.total ?? 0 };
  }

  async findBySlug(slug: string): Promise<CharacterRecord | null> {
    return this.prisma.character.findUnique({ where: { slug } });
  }

  async save(input: CharacterInput, owner: CharacterOwner, author: string): Promise<CharacterRecord | null> {
    // One statement: the owner check and the write cannot be split by a concurrent writer of the slug.
    const rows = await this.prisma.$queryRaw<CharacterRecord[]>`
      INSERT INTO characters AS c (slug, name, description, system_prompt, model_id, tags, categories, adult, web_enabled, featured, author, owner_account_id)
      VALUES (${input.slug}, ${input.name}, ${input.description}, ${input.systemPrompt}, ${input.modelId}, ${input.tags}::text[], ${input.categories}::text[],
        ${input.adult}, ${input.webEnabled}, ${input.featured}, ${author}, ${owner}::uuid)
      ON CONFLICT (slug) DO UPDATE SET name = EXCLUDED.name, description = EXCLUDED.description, system_prompt = EXCLUDED.system_prompt,
        model_id = EXCLUDED.model_id, tags = EXCLUDED.tags, categories = EXCLUDED.categories, adult = EXCLUDED.adult,
        web_enabled = EXCLUDED.web_enabled, featured = EXCLUDED.featured, author = EXCLUDED.author, updated_at = now()
      WHERE c.owner_account_id IS NOT DISTINCT FROM EXCLUDED.owner_account_id
      RETURNING ${COLUMNS}`;
    return rows[0] ?? null;
  }

  async insertIfMissing(input: CharacterInput, author: string): Promise<boolean> {
    const created = await this.prisma.character.createMany({ data: [{ ...input, author }], skipDuplicates: true });
    return created.count === 1;
  }

  async delete(slug: string, ownedBy?: string): Promise<boolean> {
    const deleted = await this.prisma.character.deleteMany({ where: { slug, ...(ownedBy === undefined ? {} : { ownerAccountId: ownedBy }) } });
    return deleted.count > 0;
  }

  async listReviews(characterId: string, page: number, pageSize: number): Promise<{ rows: CharacterReviewRecord[]; total: number }> {
    const [rows, total] = await Promise.all([
      this.prisma.characterReview.findMany({
        where: { characterId },
        orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
        skip: (page - 1) * pageSize,
        take: pageSize,
      }),
      this.prisma.characterReview.count({ where: { characterId } }),
    ]);
    return { rows, total };
  }

  async findReview(characterId: string, reviewId: string): Promise<CharacterReviewRecord | null> {
    return this.prisma.characterReview.findFirst({ where: { id: reviewId, characterId } });
  }

  async addReview(characterId: string, review: NewReview): Promise<CharacterReviewRecord> {
    return this.prisma.$transaction(async (tx) => {
      const created = await tx.characterReview.create({ data: { characterId, ...review } });
      // Stats only: a review does not make the character itself "updated".
      await tx.$executeRaw`UPDATE characters SET rating_count = rating_count + 1, rating_sum = rating_sum + ${review.rating} WHERE id = ${characterId}::uuid`;
      return created;
    });
  }

  async deleteReview(characterId: string, reviewId: string, accountId: string): Promise<boolean> {
    const updated = await this.prisma.$executeRaw`
      WITH gone AS (
        DELETE FROM character_reviews WHERE id = ${reviewId}::uuid AND character_id = ${characterId}::uuid AND account_id = ${accountId}::uuid RETURNING rating
      )
      UPDATE characters SET rating_count = rating_count - 1, rating_sum = rating_sum - gone.rating FROM gone WHERE characters.id = ${characterId}::uuid`;
    return updated > 0;
  }
}
