import { CHARACTERS } from './subjects';
import { requestSchemaOf } from '../request-schemas';
import { characterInputSchema, characterReviewInputSchema, characterWriterSchema } from './schemas';

const NUL = 'must not contain NUL characters (\\u0000)';
const input = { slug: 'ok', name: 'Ok', systemPrompt: 'Be kind.', modelId: 'm' };
const account = '11111111-1111-4111-8111-111111111111';

/** The errors of one field, the way the gateway's 400 names them. */
const errorsAt = (result: { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } }, path: string) =>
  (result.error?.issues ?? []).filter((i) => i.path.join('.') === path).map((i) => i.message);

describe('character schemas: NUL bytes (Postgres text cannot hold them)', () => {
  it.each([
    ['name', { name: 'a\u0000' }],
    ['description', { description: '\u0000' }],
    ['systemPrompt', { systemPrompt: 'x\u0000y' }],
    ['modelId', { modelId: 'm\u0000' }],
    ['tags.0', { tags: ['\u0000tag'] }],
    ['categories.1', { categories: ['ok', 'c\u0000'] }],
  ])('refuses one in %s of a character, on the API, the CLI and the message alike', (path, over) => {
    for (const schema of [characterInputSchema, requestSchemaOf(CHARACTERS.CREATE)!])
      expect(errorsAt(schema.safeParse({ ...input, ...over, accountId: account }), path)).toEqual([NUL]);
  });

  it.each([['username'], ['message'], ['locale']])('refuses one in a review %s', (field) => {
    const review = { rating: 3, username: 'u', [field]: 'a\u0000' };
    expect(errorsAt(characterReviewInputSchema.safeParse(review), field)).toEqual([NUL]);
    expect(errorsAt(requestSchemaOf(CHARACTERS.ADD_REVIEW)!.safeParse({ ...review, slug: 'ok', accountId: account }), field)).toEqual([NUL]);
  });

  it('refuses one in a list search or filter message', () => {
    const list = { sortBy: 'featured', sortOrder: 'desc', limit: 10, offset: 0 };
    const schema = requestSchemaOf(CHARACTERS.LIST)!;
    expect(errorsAt(schema.safeParse({ ...list, search: '\u0000' }), 'search')).toEqual([NUL]);
    expect(errorsAt(schema.safeParse({ ...list, tags: ['a\u0000'] }), 'tags.0')).toEqual([NUL]);
    expect(schema.safeParse({ ...list, search: 'plain text, tabs\tand newlines\n' }).success).toBe(true);
  });

  it('names the writing account on every write', () => {
    expect(characterWriterSchema.safeParse({ slug: 'ok' }).success).toBe(false);
    expect(characterWriterSchema.safeParse({ slug: 'ok', accountId: 'not-a-uuid' }).success).toBe(false);
    expect(characterWriterSchema.parse({ slug: 'ok', accountId: account }).accountId).toBe(account);
  });
});
