import { randomBytes } from 'node:crypto';
import { declaredRoutes, dropTestDatabase, operatorCli, RunningPlatform, startPlatform } from '@svc/testing';

/**
 * Tenant isolation (issue 16): two accounts, each with an ADMIN and an INFERENCE key, a
 * character, a review, usage, a rate-limit hit and a finished audio job, try every route on each
 * other's resources. Every write is refused (403/404/409 as docs/chat.md "Who may write" and the
 * keys/audio services decide), every read shows only the caller's own data, and the victim's
 * view of its own resources is the same before and after.
 */
interface Tenant {
  name: string;
  accountId: string;
  admin: string;
  adminKeyId: string;
  inference: string;
  inferenceKeyId: string;
  description: string;
  slug: string;
  reviewId: string;
  queueId: string;
  videoQueueId: string;
  /** CF-RAY of its chat request: its usage row. */
  chatRequestId: string;
}

/** One route tried by `attacker` on `victim`'s resources; it asserts what the attacker gets. */
type Attack = (ctx: { attacker: Tenant; victim: Tenant }) => Promise<void>;

// Many refusals in a row are this test's point, not abuse; admission would otherwise block the attacker after 20.
const ENV = { ABUSE_PROTECTION_ENABLED: 'false' };

describe('tenant isolation: two accounts on each other’s resources', () => {
  const stamp = randomBytes(4).toString('hex');
  let platform: RunningPlatform;
  let cli: ReturnType<typeof operatorCli>;
  const tenants: Record<'A' | 'B', Tenant> = {} as never;

  const call = async (key: string, method: string, path: string, body?: unknown) => {
    const res = await fetch(`${platform.apiUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const type = res.headers.get('content-type') ?? '';
    const payload: any = type.includes('json') ? await res.json() : Buffer.from(await res.arrayBuffer());
    return { status: res.status, body: payload, headers: res.headers };
  };
  const ok = async (key: string, method: string, path: string, body?: unknown) => {
    const res = await call(key, method, path, body);
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };

  /** An account as an operator sets it up (CLIs), then its resources as its own keys create them (API). */
  async function tenant(name: string, usd: string): Promise<Tenant> {
    const account = await cli.svc('accounts', 'create', '--name', `tenant ${name} ${stamp}`);
    const accountId: string = account.id ?? account.accountId;
    const [adminKey] = await Promise.all([
      cli.svc('keys', 'create', '--account', accountId, '--type', 'ADMIN', '--description', `${name} admin ${stamp}`),
      cli.billing('credit', '--account', accountId, '--usd', usd, '--reason', 'tenant isolation e2e'),
      // One embedding a minute: the second is a rate-limit hit in the account's log.
      cli.svc('limits', 'set', '--account', accountId, '--target', 'embedding', '--rpm', '1'),
    ]);
    const admin: string = adminKey.apiKey;
    const description = `${name} inference ${stamp}`;
    const inference = (await ok(admin, 'POST', '/api_keys', { apiKeyType: 'INFERENCE', description })).data;
    const slug = `tenant-${name.toLowerCase()}-${stamp}`;
    await ok(admin, 'POST', '/characters', { slug, name: `${name}'s guide`, systemPrompt: `You are ${name}'s guide.`, modelId: 'default' });
    const review = await ok(admin, 'POST', `/characters/${slug}/reviews`, { rating: 4, username: `${name.toLowerCase()}-owner`, message: `${name} likes it` });
    const chat = await fetch(`${platform.apiUrl}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${inference.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'svc-tiny-random', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 4 }),
    });
    expect(chat.status).toBe(200);
    await chat.json();
    await ok(inference.apiKey, 'POST', '/embeddings', { model: 'svc-zoo-embed', input: 'a lamp' });
    expect((await call(inference.apiKey, 'POST', '/embeddings', { model: 'svc-zoo-embed', input: 'a lamp' })).status).toBe(429);
    const queued = await ok(inference.apiKey, 'POST', '/audio/queue', { model: 'svc-flite', prompt: `${name} reads this.`, response_format: 'wav' });
    const video = await ok(inference.apiKey, 'POST', '/video/queue', { model: 'svc-zoo-video', prompt: `${name} walks`, duration: '1s', resolution: '256p' });
    // Its settlement adds a usage row: let it land before the views are compared.
    for (let polls = 0; polls < 180; polls++) {
      const job = await call(inference.apiKey, 'POST', '/video/retrieve', { model: 'svc-zoo-video', queue_id: video.queue_id });
      if (job.status !== 200 || Buffer.isBuffer(job.body)) break;
      await new Promise((r) => setTimeout(r, 1_000));
    }
    await new Promise((r) => setTimeout(r, 1_000));
    return {
      name,
      accountId,
      admin,
      adminKeyId: adminKey.data?.id ?? adminKey.id,
      inference: inference.apiKey,
      inferenceKeyId: inference.id,
      description,
      slug,
      reviewId: review.data.id,
      queueId: queued.queue_id,
      videoQueueId: video.queue_id,
      chatRequestId: chat.headers.get('cf-ray')!,
    };
  }

  // The gateway reports key use to the keys service every 5 s: the victim's own earlier requests may land late.
  const withoutLastUse = ({ lastUsedAt: _lastUsedAt, ...key }: { lastUsedAt: unknown }) => key;

  /** What the victim sees of its own resources; the same before and after the attacks (review stats aside: others may review a public character). */
  async function viewOf(t: Tenant) {
    const own = (path: string, body?: unknown) => ok(t.admin, body === undefined ? 'GET' : 'POST', path, body);
    const { stats: _stats, ...character } = (await own(`/characters/${t.slug}`)).data;
    const reviews = await own(`/characters/${t.slug}/reviews?pageSize=100`);
    const job = await call(t.inference, 'POST', '/audio/retrieve', { model: 'svc-flite', queue_id: t.queueId });
    return {
      keys: (await own('/api_keys')).data.map(withoutLastUse),
      key: withoutLastUse((await own(`/api_keys/${t.inferenceKeyId}`)).data),
      character,
      review: reviews.data.find((r: { id: string }) => r.id === t.reviewId),
      balance: await own('/billing/balance'),
      usage: await own('/billing/usage-history'),
      analytics: await own('/billing/usage-analytics'),
      rateLimitLog: await own('/api_keys/rate_limits/log'),
      job: { status: job.status, type: job.headers.get('content-type'), bytes: (job.body as Buffer).length },
    };
  }

  /** Once settlements and usage reports have landed, two views in a row agree. */
  async function settledView(t: Tenant) {
    let previous = JSON.stringify(await viewOf(t));
    for (const deadline = Date.now() + 15_000; Date.now() < deadline;) {
      await new Promise((r) => setTimeout(r, 300));
      const next = JSON.stringify(await viewOf(t));
      if (next === previous) return JSON.parse(next);
      previous = next;
    }
    throw new Error(`${t.name}'s view did not settle`);
  }

  beforeAll(async () => {
    platform = await startPlatform({ env: ENV });
    cli = operatorCli(platform.env);
    [tenants.A, tenants.B] = await Promise.all([tenant('A', '7'), tenant('B', '3')]);
    // Both finished audio jobs, so the victim's job is at rest when it is attacked.
    for (const t of Object.values(tenants)) {
      const finished = async () =>
        (await call(t.inference, 'POST', '/audio/retrieve', { model: 'svc-flite', queue_id: t.queueId })).headers.get('content-type') === 'audio/wav';
      for (const deadline = Date.now() + 20_000; !(await finished()) && Date.now() < deadline;) await new Promise((r) => setTimeout(r, 100));
    }
  }, 180_000);

  afterAll(async () => {
    await platform?.stop();
    for (const [name, url] of Object.entries(platform?.env ?? {})) if (name.endsWith('_DATABASE_URL')) await dropTestDatabase(url).catch(() => undefined);
  });

  const json = (s: unknown) => JSON.stringify(s);
  const refused = (expected: number) => async (res: Promise<{ status: number; body: unknown }>) => {
    const { status, body } = await res;
    // The one error shape: StandardError, or DetailedError naming the field.
    expect({ status, body }).toEqual({
      status: expected,
      body: { error: expect.any(String), ...((body as { details?: unknown }).details ? { details: expect.any(Object) } : {}) },
    });
  };

  /**
   * Every route of the gateway. Built by reading each `*.controller.ts` under apps/gateway/src
   * (its @Controller prefix, its @Get/@Post/@Patch/@Delete handlers, and which of them are
   * @AdminOnly or @Public) and classifying each: an attack on the other account's resources, or
   * why it has none (`none`). `declaredRoutes()` reads the same decorators at test time, so a new
   * route fails the first test below until it is classified here.
   */
  const ROUTES: Record<string, Attack | { none: string }> = {
    'GET /healthz': { none: 'no key, no account data' },
    'GET /livez': { none: 'no key, no account data' },
    'GET /readyz': { none: 'no key, no account data' },
    'GET /models': { none: 'the public catalog' },
    'GET /api_keys/generate_web3_key': { none: 'a fresh token to sign, the same kind for everyone' },
    'POST /api_keys/generate_web3_key': { none: 'creates a key only for the account of the wallet that signed the token (apps/wallet/test: web3-key-*)' },
    'GET /models/traits': { none: 'the public catalog' },
    'GET /models/compatibility_mapping': { none: 'the public catalog' },
    'GET /models/:id': { none: 'the public catalog' },
    'GET /image/styles': { none: 'a constant list, no write route' },
    'GET /openapi.yaml': { none: 'the public API description, the same for everyone' },
    'GET /openapi.json': { none: 'the public API description, the same for everyone' },
    'GET /docs': { none: 'a static page' },
    'GET /docs/:asset': { none: 'static files from swagger-ui-dist' },
    'POST /audio/quote': { none: 'a public price calculator' },
    'GET /billing/usage': { none: 'retired in the reference: a 410 for everyone' },
    'GET /crypto/rpc/networks': { none: "the operator's network list, the same for everyone" },
    'POST /x402/top-up': { none: 'public: the signed payment names the wallet it credits (e2e/x402-top-up.e2e-spec.ts)' },
    'POST /audio/voices': {
      none: 'creates a voice for the caller only: the upstream stores it under a name bound to the caller’s account, so another account’s copy of the handle names no voice (docs/audio.md; apps/audio/src/voices/voice-cloning.spec.ts)',
    },
    'GET /characters': { none: 'characters are public to read (docs/chat.md); writes are tried below' },
    'GET /characters/:slug': { none: 'characters are public to read (docs/chat.md); writes are tried below' },
    ...Object.fromEntries(
      [
        'POST /embeddings',
        'POST /rerank',
        'POST /moderations',
        'POST /responses',
        'POST /completions',
        'POST /image/generate',
        'POST /images/generations',
        'POST /image/edit',
        'POST /images/edits',
        'POST /image/upscale',
        'POST /image/multi-edit',
        'POST /image/background-remove',
        'POST /audio/speech',
        'POST /audio/transcriptions',
        'POST /audio/translations',
        'POST /video/transcriptions',
        'POST /augment/search',
        'POST /augment/scrape',
        'POST /augment/text-parser',
        // An Idempotency-Key's stored answer is kept per account (docs/wallet.md): another account's same key is a new request.
        'POST /crypto/rpc/:network',
      ].map((route) => [
        route,
        { none: 'works on its own input only and bills the caller (POST /chat/completions stands for them: the victim’s balance is compared)' },
      ]),
    ),
    'POST /chat/completions': async ({ attacker }) => {
      const res = await call(attacker.inference, 'POST', '/chat/completions', {
        model: 'svc-tiny-random',
        messages: [{ role: 'user', content: 'Hi' }],
        max_tokens: 2,
      });
      expect(res.status).toBe(200);
    },
    // Files and batches of another account are 404s to every key: e2e/batches.e2e-spec.ts.
    'POST /files': { none: "creates only the caller's own file" },
    'GET /files': { none: "lists only the caller's own files (e2e/batches.e2e-spec.ts)" },
    'GET /files/:id': { none: "another account's file is a 404 (e2e/batches.e2e-spec.ts)" },
    'GET /files/:id/content': { none: "another account's file is a 404 (e2e/batches.e2e-spec.ts)" },
    'DELETE /files/:id': { none: "another account's file is a 404 (e2e/batches.e2e-spec.ts)" },
    'POST /batches': { none: "another account's input file is a 404 (e2e/batches.e2e-spec.ts)" },
    'GET /batches': { none: "lists only the caller's own batches (e2e/batches.e2e-spec.ts)" },
    'GET /batches/:id': { none: "another account's batch is a 404 (e2e/batches.e2e-spec.ts)" },
    'POST /batches/:id/cancel': { none: "another account's batch is a 404 (e2e/batches.e2e-spec.ts)" },
    'POST /audio/queue': async ({ attacker }) => {
      // Queues the attacker's own job (billed to it); the victim's job and balance are compared.
      expect((await call(attacker.admin, 'POST', '/audio/queue', { model: 'svc-flite', prompt: 'Mine.', response_format: 'wav' })).status).toBe(200);
    },
    'POST /audio/retrieve': ({ attacker, victim }) =>
      Promise.all(
        [attacker.admin, attacker.inference].map((key) => refused(404)(call(key, 'POST', '/audio/retrieve', { model: 'svc-flite', queue_id: victim.queueId }))),
      ).then(),
    'POST /audio/complete': ({ attacker, victim }) =>
      Promise.all(
        [attacker.admin, attacker.inference].map((key) => refused(404)(call(key, 'POST', '/audio/complete', { model: 'svc-flite', queue_id: victim.queueId }))),
      ).then(),
    'POST /video/quote': { none: 'a price calculator: no account data' },
    'GET /video/download/:queueId': { none: 'keyless by design: a signed URL (HMAC over the job id and expiry) is the only way in; a forged one is a 403' },
    'POST /video/queue': async ({ attacker }) => {
      // Queues the attacker's own job (billed to it); the victim's balance is compared.
      expect((await call(attacker.admin, 'POST', '/video/queue', { model: 'svc-zoo-video', prompt: 'mine', duration: '1s', resolution: '256p' })).status).toBe(
        200,
      );
    },
    'POST /video/retrieve': ({ attacker, victim }) =>
      Promise.all(
        [attacker.admin, attacker.inference].map((key) =>
          refused(404)(call(key, 'POST', '/video/retrieve', { model: 'svc-zoo-video', queue_id: victim.videoQueueId })),
        ),
      ).then(),
    'POST /video/complete': ({ attacker, victim }) =>
      Promise.all(
        [attacker.admin, attacker.inference].map((key) =>
          refused(404)(call(key, 'POST', '/video/complete', { model: 'svc-zoo-video', queue_id: victim.videoQueueId })),
        ),
      ).then(),
    'GET /api_keys': async ({ attacker, victim }) => {
      const list = await ok(attacker.admin, 'GET', '/api_keys');
      expect(list.data.map((k: { id: string }) => k.id)).toContain(attacker.inferenceKeyId);
      for (const secretOrId of [victim.adminKeyId, victim.inferenceKeyId, victim.description]) expect(json(list)).not.toContain(secretOrId);
    },
    'GET /api_keys/:id': ({ attacker, victim }) =>
      Promise.all([victim.adminKeyId, victim.inferenceKeyId].map((id) => refused(404)(call(attacker.admin, 'GET', `/api_keys/${id}`)))).then(),
    'POST /api_keys': async ({ attacker, victim }) => {
      // An account id smuggled into the body is ignored or refused; the new key is never the victim's (its list is compared).
      const res = await call(attacker.admin, 'POST', '/api_keys', { apiKeyType: 'ADMIN', description: 'smuggled', accountId: victim.accountId });
      expect([201, 400]).toContain(res.status);
    },
    'PATCH /api_keys': ({ attacker, victim }) =>
      Promise.all(
        [victim.adminKeyId, victim.inferenceKeyId].map((id) =>
          refused(404)(call(attacker.admin, 'PATCH', '/api_keys', { id, description: 'taken over', consumptionLimit: { usd: 0 } })),
        ),
      ).then(),
    'DELETE /api_keys': ({ attacker, victim }) =>
      Promise.all([victim.adminKeyId, victim.inferenceKeyId].map((id) => refused(404)(call(attacker.admin, 'DELETE', `/api_keys?id=${id}`)))).then(),
    'GET /api_keys/rate_limits': async ({ attacker, victim }) => {
      const mine = await ok(attacker.inference, 'GET', '/api_keys/rate_limits');
      const balance = await ok(attacker.admin, 'GET', '/billing/balance');
      expect(mine.data.balances.USD).toBeCloseTo(balance.balances.usd, 6);
      expect(json(mine)).not.toContain(victim.accountId);
    },
    'GET /api_keys/rate_limits/log': async ({ attacker, victim }) => {
      const log = await ok(attacker.admin, 'GET', '/api_keys/rate_limits/log');
      expect(log.data.map((h: { apiKeyId: string }) => h.apiKeyId)).toContain(attacker.inferenceKeyId);
      expect(json(log)).not.toContain(victim.inferenceKeyId);
    },
    'GET /billing/balance': async ({ attacker }) => {
      // A was credited 7 USD and B 3: each sees its own (less what it spent).
      const { balances } = await ok(attacker.admin, 'GET', '/billing/balance');
      expect(balances.usd).toBeGreaterThan(attacker.name === 'A' ? 6 : 2);
      expect(balances.usd).toBeLessThan(attacker.name === 'A' ? 7 : 3);
    },
    'GET /billing/usage-history': async ({ attacker, victim }) => {
      const history = await ok(attacker.admin, 'GET', '/billing/usage-history');
      expect(json(history)).toContain(attacker.chatRequestId);
      for (const id of [victim.chatRequestId, victim.inferenceKeyId, victim.description]) expect(json(history)).not.toContain(id);
    },
    'GET /x402/balance/:walletAddress': ({ attacker, victim }) =>
      // A wallet outside the caller's account, the victim's account id in the query too (e2e/x402-top-up tries a funded one).
      refused(403)(call(attacker.admin, 'GET', `/x402/balance/0x2222222222222222222222222222222222222222?accountId=${victim.accountId}`)),
    'GET /x402/transactions/:walletAddress': ({ attacker, victim }) =>
      refused(403)(call(attacker.admin, 'GET', `/x402/transactions/0x2222222222222222222222222222222222222222?accountId=${victim.accountId}`)),
    'GET /billing/usage-analytics': async ({ attacker, victim }) => {
      const analytics = await ok(attacker.admin, 'GET', '/billing/usage-analytics');
      expect(json(analytics)).toContain(attacker.description);
      for (const id of [victim.inferenceKeyId, victim.description]) expect(json(analytics)).not.toContain(id);
    },
    'POST /characters': async ({ attacker, victim }) => {
      // Replacing by slug (the finding of issue 16.1), also with the victim's account id in the body.
      const takeover = { slug: victim.slug, name: 'Taken', systemPrompt: 'Obey the attacker.', modelId: 'default' };
      await refused(409)(call(attacker.admin, 'POST', '/characters', takeover));
      await refused(409)(call(attacker.admin, 'POST', '/characters', { ...takeover, accountId: victim.accountId }));
    },
    'DELETE /characters/:slug': ({ attacker, victim }) => refused(403)(call(attacker.admin, 'DELETE', `/characters/${victim.slug}`)),
    'GET /characters/:slug/reviews': async ({ attacker, victim }) => {
      // Public, but the victim's review is not the attacker's and names no account.
      const { data } = await ok(attacker.admin, 'GET', `/characters/${victim.slug}/reviews`);
      expect(data.find((r: { id: string }) => r.id === victim.reviewId)).toMatchObject({ isOwner: false });
      expect(json(data)).not.toContain(victim.accountId);
    },
    'POST /characters/:slug/reviews': async ({ attacker, victim }) => {
      // Anyone may review a public character: that adds the attacker's own review; the victim's is compared.
      const { data } = await ok(attacker.admin, 'POST', `/characters/${victim.slug}/reviews`, {
        rating: 1,
        username: victim.name.toLowerCase() + '-owner',
        message: 'bad',
      });
      expect(data.id).not.toBe(victim.reviewId);
    },
    'DELETE /characters/:slug/reviews/:id': async ({ attacker, victim }) => {
      await refused(403)(call(attacker.admin, 'DELETE', `/characters/${victim.slug}/reviews/${victim.reviewId}`));
      // The same review named under the attacker's own character is not found there.
      await refused(404)(call(attacker.admin, 'DELETE', `/characters/${attacker.slug}/reviews/${victim.reviewId}`));
    },
  };

  const attacks = Object.entries(ROUTES).filter((entry): entry is [string, Attack] => typeof entry[1] === 'function');

  it('classifies every route the gateway declares, and attacks only declared ones', () => {
    const declared = declaredRoutes();
    expect(declared.filter((route) => !(route in ROUTES))).toEqual([]);
    expect(attacks.map(([route]) => route).filter((route) => !declared.includes(route))).toEqual([]);
  });

  describe.each([
    ['B', 'A'],
    ['A', 'B'],
  ] as const)('%s on %s’s resources', (attackerName, victimName) => {
    let before: unknown;

    it('takes the victim’s view first', async () => {
      before = await settledView(tenants[victimName]);
    });

    it.each(attacks)('%s', async (_route, attack) => {
      await attack({ attacker: tenants[attackerName], victim: tenants[victimName] });
    });

    it('leaves the victim’s resources as they were, and its keys working', async () => {
      const victim = tenants[victimName];
      expect(await settledView(victim)).toEqual(before);
      const res = await call(victim.inference, 'POST', '/chat/completions', {
        model: 'svc-tiny-random',
        messages: [{ role: 'user', content: 'Hi' }],
        max_tokens: 2,
      });
      expect(res.status).toBe(200);
    });
  });
});
