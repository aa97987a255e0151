import { KEYS } from '@svc/contracts';
import { RpcClient } from '@svc/messaging';
import { ChatStack, startChatStack } from './support/chat-stack';

/**
 * Characters and reviews across two accounts, through a gateway process with the keys and chat
 * services: an account's ADMIN key writes only its own characters and reviews, the shipped ones
 * are the operator's, and NUL bytes are a 400 naming the field (Postgres refuses them in text).
 */
const CATALOG = `
models:
  - id: persona-model
    name: Persona model
    type: text
    engine: { kind: openai-compatible, baseUrl: "http://127.0.0.1:9/v1", model: unused, timeoutMs: 1000 }
    traits: [default]
    pricing: { input: { usd: 0.01, diem: 0.01 }, output: { usd: 0.02, diem: 0.02 } }
`;

let stack: ChatStack;
/** Account A's ADMIN key (the stack's account), account B's ADMIN and INFERENCE keys. */
let adminA: string;
let adminB: string;
let inferenceB: string;

/** An ADMIN and an INFERENCE key of a new account, made the way the keys CLI makes them. */
async function secondAccount(stack: ChatStack): Promise<{ admin: string; inference: string }> {
  const rpc = new RpcClient(stack.nc, 10_000);
  const { accountId } = await rpc.send(KEYS.CREATE_ACCOUNT, { name: 'tenancy account B' });
  const key = async (apiKeyType: 'ADMIN' | 'INFERENCE') => {
    const limits = { consumptionLimits: { usd: null, diem: null }, limitPeriod: 'EPOCH', modelPrivacy: 'ALL' } as const;
    return (await rpc.send(KEYS.CREATE, { accountId, apiKeyType, description: `tenancy B ${apiKeyType}`, expiresAt: null, ...limits })).apiKey;
  };
  return { admin: await key('ADMIN'), inference: await key('INFERENCE') };
}

beforeAll(async () => {
  stack = await startChatStack({ name: 'tenancy', catalog: CATALOG });
  adminA = await stack.newKey('ADMIN');
  ({ admin: adminB, inference: inferenceB } = await secondAccount(stack));
}, 180_000);

afterAll(async () => {
  await stack?.stop();
}, 60_000);

const call = (pathname: string, key: string, init: { method?: string; body?: unknown } = {}) => stack.request(pathname, { ...init, key });
const persona = (over: Record<string, unknown> = {}) => ({
  slug: 'a-persona',
  name: "A's persona",
  systemPrompt: 'You are the persona of account A.',
  modelId: 'persona-model',
  ...over,
});

describe('characters across accounts', () => {
  it("refuses another account's slug with 409 and leaves the owner's character as it was", async () => {
    const created = await call('/characters', adminA, { body: persona() });
    expect(created.status).toBe(200);
    const replaced = await call('/characters', adminA, { body: persona({ description: 'Edited by its owner' }) });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data).toEqual(expect.objectContaining({ id: created.body.data.id, description: 'Edited by its owner' }));

    const taken = await call('/characters', adminB, { body: persona({ name: "B's takeover", systemPrompt: 'You obey B.' }) });
    expect(taken.status).toBe(409);
    expect(taken.body).toEqual({
      error: 'Character "a-persona" belongs to another account; choose another slug.',
      details: { _errors: [], slug: { _errors: ['Character "a-persona" belongs to another account; choose another slug.'] } },
    });
    const after = await call('/characters/a-persona', inferenceB);
    expect(after.body.data).toEqual(expect.objectContaining({ id: created.body.data.id, name: "A's persona", description: 'Edited by its owner' }));
  });

  it("refuses to delete another account's character with 403", async () => {
    const refused = await call('/characters/a-persona', adminB, { method: 'DELETE' });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: 'Character "a-persona" belongs to another account.' });
    expect((await call('/characters/a-persona', adminA)).body.data.name).toBe("A's persona");
    expect((await call('/characters/no-such-one', adminB, { method: 'DELETE' })).status).toBe(404);
  });

  it('keeps the shipped characters out of every account key: 409 to replace, 403 to delete, 403 to feature', async () => {
    const before = (await call('/characters/stoic-coach', adminA)).body.data;
    expect(before.author).toBe('svc');
    const replace = await call('/characters', adminA, { body: persona({ slug: 'stoic-coach', name: 'Not so stoic' }) });
    expect(replace.status).toBe(409);
    expect(replace.body.error).toMatch(/operator's/);
    const remove = await call('/characters/stoic-coach', adminB, { method: 'DELETE' });
    expect(remove.status).toBe(403);
    expect((await call('/characters/stoic-coach', adminA)).body.data).toEqual(before);

    const featured = await call('/characters', adminA, { body: persona({ slug: 'a-featured', featured: true }) });
    expect(featured.status).toBe(403);
    expect(featured.body.details.featured._errors[0]).toMatch(/operator/);
    expect((await call('/characters/a-featured', adminA)).status).toBe(404);
  });

  it('lets only the author account delete a review; the listing marks the reader’s own', async () => {
    const review = await call('/characters/a-persona/reviews', adminB, { body: { rating: 1, username: 'b', message: 'Not for me' } });
    expect(review.status).toBe(200);
    expect(review.body.data).toEqual(expect.objectContaining({ rating: 1, isOwner: true }));
    const id = review.body.data.id;
    expect((await call('/characters/a-persona/reviews', inferenceB)).body.data[0]).toEqual(expect.objectContaining({ id, isOwner: true }));
    expect((await call('/characters/a-persona/reviews', adminA)).body.data[0]).toEqual(expect.objectContaining({ id, isOwner: false }));

    const refused = await call(`/characters/a-persona/reviews/${id}`, adminA, { method: 'DELETE' });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: `Review "${id}" was written by another account.` });
    expect((await call('/characters/a-persona', adminA)).body.data.stats).toEqual(expect.objectContaining({ ratingCount: 1, ratingSum: 1 }));
    expect((await call(`/characters/a-persona/reviews/${id}`, inferenceB, { method: 'DELETE' })).status).toBe(401);

    expect((await call(`/characters/a-persona/reviews/${id}`, adminB, { method: 'DELETE' })).body).toEqual({ deleted: true });
    expect((await call('/characters/a-persona', adminA)).body.data.stats).toEqual(expect.objectContaining({ ratingCount: 0, ratingSum: 0 }));
    expect((await call(`/characters/a-persona/reviews/${id}`, adminB, { method: 'DELETE' })).status).toBe(404);
    expect((await call('/characters/a-persona/reviews/not-a-uuid', adminB, { method: 'DELETE' })).status).toBe(404);
  });

  it('frees the slug once its owner deletes the character', async () => {
    expect((await call('/characters/a-persona', adminA, { method: 'DELETE' })).body).toEqual({ deleted: true });
    const mine = await call('/characters', adminB, { body: persona({ name: "B's persona" }) });
    expect(mine.status).toBe(200);
    expect((await call('/characters', adminA, { body: persona() })).status).toBe(409);
    expect((await call('/characters/a-persona', adminA)).body.data.name).toBe("B's persona");
  });
});

describe('NUL bytes', () => {
  it.each([
    ['name', { name: 'bad\u0000name' }, ['name']],
    ['description', { description: 'a\u0000b' }, ['description']],
    ['systemPrompt', { systemPrompt: 'You are\u0000 evil.' }, ['systemPrompt']],
    ['a tag', { tags: ['ok', 'b\u0000d'] }, ['tags', '1']],
    ['a category', { categories: ['\u0000'] }, ['categories', '0']],
    ['modelId', { modelId: 'persona-model\u0000' }, ['modelId']],
  ])('refuses %s in a character with 400 naming the field', async (_name, over, path) => {
    const answer = await call('/characters', adminB, { body: persona({ slug: 'nul-test', ...over }) });
    expect(answer.status).toBe(400);
    const field = path.reduce((node, key) => node[key], answer.body.details);
    expect(field._errors).toContain('must not contain NUL characters (\\u0000)');
    expect((await call('/characters/nul-test', adminB)).status).toBe(404);
  });

  it.each([
    ['username', { rating: 5, username: 'b\u0000' }],
    ['message', { rating: 5, username: 'b', message: '\u0000' }],
    ['locale', { rating: 5, username: 'b', locale: 'en\u0000' }],
  ])('refuses %s in a review with 400 naming the field', async (field, body) => {
    const answer = await call('/characters/stoic-coach/reviews', adminB, { body });
    expect(answer.status).toBe(400);
    expect(answer.body.details[field]._errors).toContain('must not contain NUL characters (\\u0000)');
  });

  it.each([
    ['search', 'search=a%00b'],
    ['tags', 'tags=ok,b%00d'],
    ['categories', 'categories=%00'],
    ['modelId', 'modelId=m%00'],
  ])('refuses %s in a list query with 400 naming the field', async (field, query) => {
    const answer = await call(`/characters?${query}`, inferenceB);
    expect(answer.status).toBe(400);
    expect(JSON.stringify(answer.body.details[field])).toContain('must not contain NUL characters');
  });
});
