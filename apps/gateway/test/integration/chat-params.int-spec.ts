import { SVC_PARAMETER_DEFAULTS } from '@svc/contracts';
import { ChatStack, startChatStack } from './support/chat-stack';
import { ApiRequest, chunksOf, LocalServer, startLocalServer, streamedText } from './support/chat-http';
import { recordingUpstream, UpstreamCall } from './support/recording-upstream';

/**
 * svc_parameters, model suffixes, the default system prompt, characters and thinking, through a
 * gateway process: private NATS and Redis, fresh keys and chat databases, the keys and chat
 * services, and a local OpenAI-compatible upstream that answers with a think block and records
 * what the chat service sent it. The embedded demo model checks the system prompt on llama.cpp.
 */
const SERVICE_PROMPT = 'TEST SERVICE PROMPT';
const THOUGHT_ANSWER = '<think>secret plan</think>\n\nThe answer.';

const CATALOG = `
models:
  - id: svc-zoo-chat
    name: Zoo chat
    type: text
    engine: { kind: embedded-llama, file: zoo/chat/svc-zoo-chat.gguf, contextSize: 256, maxParallel: 1, maxQueue: 8 }
    traits: [default]
    pricing: { input: { usd: 0.01, diem: 0.01 }, output: { usd: 0.02, diem: 0.02 } }
    availableContextTokens: 256
    maxCompletionTokens: 200
    capabilities: { supportsReasoning: false, supportsXSearch: false }
  - id: thinker
    name: Reasoning upstream
    type: text
    engine: { kind: openai-compatible, baseUrl: "\${PARAMS_UPSTREAM_URL}", model: thinker-upstream, timeoutMs: 10000 }
    pricing: { input: { usd: 0.01, diem: 0.01 }, output: { usd: 0.02, diem: 0.02 } }
    maxCompletionTokens: 512
    capabilities: { supportsReasoning: true, supportsXSearch: false }
  - id: searcher
    name: Upstream with x search
    type: text
    engine: { kind: openai-compatible, baseUrl: "\${PARAMS_UPSTREAM_URL}", model: searcher-upstream, timeoutMs: 10000 }
    pricing: { input: { usd: 0.01, diem: 0.01 }, output: { usd: 0.02, diem: 0.02 } }
    maxCompletionTokens: 512
    capabilities: { supportsReasoning: false, supportsXSearch: true }
`;

let stack: ChatStack;
let api: string;
let inferenceKey: string;
let adminKey: string;
let upstream: LocalServer;
const calls: UpstreamCall[] = [];

beforeAll(async () => {
  upstream = await startLocalServer(recordingUpstream(calls, { answer: THOUGHT_ANSWER, chunkSize: 3, promptTokens: 10, completionTokens: 12 }));
  stack = await startChatStack({
    name: 'params',
    catalog: CATALOG,
    env: { PARAMS_UPSTREAM_URL: `http://127.0.0.1:${upstream.port}/v1` },
    chatEnv: { SVC_SYSTEM_PROMPT: SERVICE_PROMPT },
  });
  ({ api, inferenceKey } = stack);
  adminKey = await stack.newKey('ADMIN');
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await upstream?.close();
}, 60_000);

const call = (pathname: string, init: ApiRequest = {}) => stack.request(pathname, init);

const user = { role: 'user', content: 'Why is the sky blue?' };
const chat = (over: Record<string, unknown> = {}) => call('/chat/completions', { body: { model: 'thinker', messages: [user], max_tokens: 32, ...over } });
/** The messages the chat service sent upstream for the last request. */
const lastUpstream = () => calls[calls.length - 1];

describe('svc_parameters', () => {
  it('fills in the defaults and echoes the effective parameters', async () => {
    const answer = await chat();
    expect(answer.status).toBe(200);
    expect(answer.body.svc_parameters).toEqual(SVC_PARAMETER_DEFAULTS);
    expect(answer.body.choices[0].message.content).toBe(THOUGHT_ANSWER);
  });

  it.each([
    [{ disable_thinking: 'true' }, 'disable_thinking'],
    [{ strip_thinking_response: 1 }, 'strip_thinking_response'],
    [{ include_svc_system_prompt: null }, 'include_svc_system_prompt'],
    [{ enable_web_search: 'maybe' }, 'enable_web_search'],
    [{ enable_web_search: true }, 'enable_web_search'],
    [{ character_slug: 'Bad Slug!' }, 'character_slug'],
  ])('answers 400 naming the field for %j', async (svc, field) => {
    const answer = await chat({ svc_parameters: svc });
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatch(field);
    expect(answer.body.details.svc_parameters[field]._errors.length).toBeGreaterThan(0);
  });

  it('reads the model suffix form into the same parameters and resolves the bare model', async () => {
    const answer = await chat({ model: 'thinker:strip_thinking_response=true&enable_web_search=auto&include_svc_system_prompt=false' });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-svc-model-id')).toBe('thinker');
    expect(answer.body.model).toBe('thinker');
    expect(answer.body.svc_parameters).toEqual({
      ...SVC_PARAMETER_DEFAULTS,
      strip_thinking_response: true,
      enable_web_search: 'auto',
      include_svc_system_prompt: false,
    });
    expect(answer.body.choices[0].message.content).toBe('The answer.');
    expect(lastUpstream().messages).toEqual([user]);
  });

  it('lets svc_parameters in the body win over the suffix for the same parameter', async () => {
    const answer = await chat({
      model: 'thinker:include_svc_system_prompt=false&strip_thinking_response=true',
      svc_parameters: { include_svc_system_prompt: true },
    });
    expect(answer.body.svc_parameters).toMatchObject({ include_svc_system_prompt: true, strip_thinking_response: true });
    expect(lastUpstream().messages[0]).toEqual({ role: 'system', content: SERVICE_PROMPT });
  });

  it.each([
    ['thinker:bogus=true', /unknown model suffix parameter "bogus"/],
    ['thinker:disable_thinking=yes', /"disable_thinking" must be a boolean/],
    ['thinker:enable_web_search=always', /"enable_web_search" must be one of/],
  ])('answers 400 for the suffix %s', async (model, message) => {
    const answer = await chat({ model });
    expect(answer.status).toBe(400);
    expect(answer.body.details.model._errors[0]).toMatch(message);
  });
});

describe('default system prompt', () => {
  it("puts the service's prompt first and the caller's after it, in one system message", async () => {
    await chat({ messages: [{ role: 'system', content: 'Be brief.' }, user] });
    expect(lastUpstream().messages).toEqual([{ role: 'system', content: `${SERVICE_PROMPT}\n\nBe brief.` }, user]);
    await chat();
    expect(lastUpstream().messages).toEqual([{ role: 'system', content: SERVICE_PROMPT }, user]);
  });

  it('is removed by include_svc_system_prompt: false', async () => {
    await chat({ messages: [{ role: 'system', content: 'Be brief.' }, user], svc_parameters: { include_svc_system_prompt: false } });
    expect(lastUpstream().messages).toEqual([{ role: 'system', content: 'Be brief.' }, user]);
  });

  it('reaches the embedded demo model through its chat template, streaming or not', async () => {
    const body = { model: 'svc-zoo-chat', messages: [{ role: 'system', content: 'Answer in one line.' }, user], max_tokens: 4, temperature: 0 };
    const withPrompt = await call('/chat/completions', { body });
    const without = await call('/chat/completions', { body: { ...body, svc_parameters: { include_svc_system_prompt: false } } });
    expect([withPrompt.status, without.status]).toEqual([200, 200]);
    expect(typeof withPrompt.body.choices[0].message.content).toBe('string');
    // The service's prompt is in the prompt the model evaluated: more prompt tokens with it.
    expect(withPrompt.body.usage.prompt_tokens).toBeGreaterThan(without.body.usage.prompt_tokens);
    const streamed = await call('/chat/completions', { body: { ...body, stream: true, stream_options: { include_usage: true } } });
    expect(streamed.status).toBe(200);
    const chunks = chunksOf(streamed.body);
    expect(chunks[0].svc_parameters).toEqual(SVC_PARAMETER_DEFAULTS);
    expect(chunks.at(-1).usage.prompt_tokens).toBe(withPrompt.body.usage.prompt_tokens);
  }, 60_000);
});

describe('thinking', () => {
  it('strip_thinking_response removes the think block; without it the block stays', async () => {
    expect((await chat({ svc_parameters: { strip_thinking_response: true } })).body.choices[0].message.content).toBe('The answer.');
    expect((await chat()).body.choices[0].message.content).toContain('<think>');
  });

  it('strips while streaming, where the tags arrive split across chunks, and echoes the parameters on the first chunk', async () => {
    const answer = await chat({ stream: true, svc_parameters: { strip_thinking_response: true } });
    expect(answer.status).toBe(200);
    const chunks = chunksOf(answer.body);
    expect(chunks[0].svc_parameters).toEqual({ ...SVC_PARAMETER_DEFAULTS, strip_thinking_response: true });
    expect(chunks.slice(1).every((c) => c.svc_parameters === undefined)).toBe(true);
    expect(streamedText(chunks)).toBe('The answer.');
    expect(answer.body).not.toContain('<think');
    expect(answer.body).not.toContain('secret');
    const raw = await chat({ stream: true });
    expect(streamedText(chunksOf(raw.body))).toBe(THOUGHT_ANSWER);
  });

  it('disable_thinking tells a reasoning model not to think and strips the block', async () => {
    const answer = await chat({ svc_parameters: { disable_thinking: true } });
    expect(answer.body.choices[0].message.content).toBe('The answer.');
    expect(answer.body.svc_parameters.disable_thinking).toBe(true);
    expect(lastUpstream().messages[0]).toEqual({ role: 'system', content: `${SERVICE_PROMPT}\n\n/no_think` });
  });

  it('disable_thinking sends no instruction to a model without supportsReasoning, but still strips', async () => {
    const answer = await chat({ model: 'searcher', svc_parameters: { disable_thinking: true } });
    expect(answer.body.choices[0].message.content).toBe('The answer.');
    expect(lastUpstream().messages[0]).toEqual({ role: 'system', content: SERVICE_PROMPT });
  });
});

describe('web flags', () => {
  // Without a search provider only "on" is refused; the other flags run (chat-web*.int-spec.ts).
  it.each([[{ enable_web_search: 'on' }, 'enable_web_search']])(
    '%j is a 400 saying the feature is not configured, before anything runs',
    async (svc, field) => {
      const before = calls.length;
      const answer = await chat({ svc_parameters: svc });
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatch(/not configured/);
      expect(answer.body.details.svc_parameters[field]._errors[0]).toMatch(/not configured/);
      expect(calls.length).toBe(before);
    },
  );

  it('enable_web_search "auto" proceeds without search, and the suffix form is refused like the body', async () => {
    const auto = await chat({ svc_parameters: { enable_web_search: 'auto' } });
    expect(auto.status).toBe(200);
    expect(auto.body.svc_parameters.enable_web_search).toBe('auto');
    expect((await chat({ model: 'thinker:enable_web_search=on' })).status).toBe(400);
  });

  it('enable_x_search needs a model with supportsXSearch, and is not configured on one', async () => {
    const unsupported = await chat({ svc_parameters: { enable_x_search: true } });
    expect(unsupported.status).toBe(400);
    expect(unsupported.body.error).toMatch(/does not support x search/);
    const supported = await chat({ model: 'searcher', svc_parameters: { enable_x_search: true } });
    expect(supported.status).toBe(400);
    expect(supported.body.error).toMatch(/not configured/);
  });
});

describe('characters', () => {
  it('lists the seeded public characters with pagination headers', async () => {
    const answer = await call('/characters');
    expect(answer.status).toBe(200);
    expect(answer.body.object).toBe('list');
    const slugs = answer.body.data.map((c: { slug: string }) => c.slug);
    expect(slugs).toEqual(expect.arrayContaining(['plain-guide', 'sardonic-lexicographer', 'stoic-coach', 'story-weaver']));
    expect(answer.body.data[0]).toEqual(
      expect.objectContaining({
        adult: false,
        author: 'svc',
        featured: true,
        modelId: 'svc-zoo-chat',
        shareUrl: null,
        photoUrl: null,
        stats: expect.objectContaining({ userRating: null }),
      }),
    );
    expect(JSON.stringify(answer.body)).not.toContain('systemPrompt');
    expect(answer.headers.get('x-pagination-limit')).toBe('50');
    expect(Number(answer.headers.get('x-pagination-total'))).toBeGreaterThanOrEqual(4);
  });

  it('filters, sorts and pages with the reference query parameters', async () => {
    expect((await call('/characters?tags=humor')).body.data.map((c: { slug: string }) => c.slug)).toEqual(['sardonic-lexicographer']);
    expect((await call('/characters?categories=philosophy,roleplay&sortBy=mostRecent&sortOrder=asc')).body.data.map((c: { slug: string }) => c.slug)).toEqual([
      'stoic-coach',
      'story-weaver',
    ]);
    expect((await call('/characters?search=%23Stoicism')).body.data.map((c: { slug: string }) => c.slug)).toEqual(['stoic-coach']);
    expect((await call('/characters?isAdult=true')).body.data).toEqual([]);
    expect((await call('/characters?isPro=true')).body.data).toEqual([]);
    const page = await call('/characters?limit=2&offset=2&sortBy=mostRecent');
    expect(page.body.data).toHaveLength(2);
    expect(page.headers.get('x-pagination-page')).toBe('2');
  });

  it.each(['limit=0', 'limit=101', 'offset=-1', 'sortBy=best', 'sortOrder=up', 'isAdult=yes'])('answers 400 for ?%s', async (q) => {
    const answer = await call(`/characters?${q}`);
    expect(answer.status).toBe(400);
    expect(answer.body.details[q.split('=')[0]]._errors.length).toBeGreaterThan(0);
  });

  it('gets one character by slug, 404 for an unknown one, and needs a key', async () => {
    const one = await call('/characters/stoic-coach');
    expect(one.status).toBe(200);
    expect(one.body).toEqual({ object: 'character', data: expect.objectContaining({ slug: 'stoic-coach', name: 'Stoic Coach', webEnabled: false }) });
    const missing = await call('/characters/no-such-character');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: expect.stringMatching(/not found/) });
    expect((await fetch(`${api}/characters`)).status).toBe(401);
  });

  it('creates characters and reviews with an ADMIN key only, and pages reviews', async () => {
    const body = { slug: 'test-persona', name: 'Test Persona', systemPrompt: 'You are the test persona.', modelId: 'thinker', tags: ['Testing'] };
    const refused = await call('/characters', { body });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ error: 'Admin API key required' });
    const created = await call('/characters', { key: adminKey, body });
    expect(created.status).toBe(200);
    expect(created.body.data).toEqual(expect.objectContaining({ slug: 'test-persona', modelId: 'thinker', author: expect.stringMatching(/^[0-9a-z]{1,5}$/) }));
    expect((await call('/characters', { key: adminKey, body: { ...body, modelId: 'nope' } })).body.details.modelId._errors[0]).toMatch(/does not exist/);

    for (const rating of [5, 4, 3])
      expect((await call('/characters/test-persona/reviews', { key: adminKey, body: { rating, username: `user${rating}` } })).status).toBe(200);
    // Read back by the same account (another of its keys): it wrote them, so it owns them.
    const reviews = await call('/characters/test-persona/reviews?page=2&pageSize=2');
    expect(reviews.status).toBe(200);
    expect(reviews.body).toEqual({
      object: 'list',
      data: [expect.objectContaining({ rating: 5, username: 'user5', isOwner: true, message: null })],
      pagination: { page: 2, pageSize: 2, total: 3, totalPages: 2 },
      summary: { averageRating: 4, totalReviews: 3 },
    });
    expect(reviews.headers.get('x-pagination-total-pages')).toBe('2');
    expect((await call('/characters/test-persona/reviews?pageSize=101')).status).toBe(400);
    expect((await call('/characters/nobody-here/reviews')).status).toBe(404);
    expect((await call('/characters/test-persona/reviews', { key: adminKey, body: { rating: 6, username: 'x' } })).status).toBe(400);
  });

  it("applies a character's persona between the service prompt and the caller's, and echoes the slug", async () => {
    const answer = await chat({ messages: [{ role: 'system', content: 'Be brief.' }, user], svc_parameters: { character_slug: 'stoic-coach' } });
    expect(answer.status).toBe(200);
    expect(answer.body.svc_parameters.character_slug).toBe('stoic-coach');
    const system = lastUpstream().messages[0];
    expect(system.role).toBe('system');
    expect(system.content.startsWith(`${SERVICE_PROMPT}\n\nYou are a calm Stoic coach.`)).toBe(true);
    expect(system.content.endsWith('\n\nBe brief.')).toBe(true);
    const suffixed = await chat({ model: 'thinker:character_slug=stoic-coach&include_svc_system_prompt=false' });
    expect(suffixed.body.svc_parameters.character_slug).toBe('stoic-coach');
    expect(lastUpstream().messages[0].content.startsWith('You are a calm Stoic coach.')).toBe(true);
  });

  it('answers 400 for an unknown character_slug, before anything runs', async () => {
    const before = calls.length;
    const answer = await chat({ svc_parameters: { character_slug: 'nobody-here' } });
    expect(answer.status).toBe(400);
    expect(answer.body.details.svc_parameters.character_slug._errors[0]).toMatch(/does not exist/);
    expect(calls.length).toBe(before);
  });

  it("runs the character's own model when the request names the default model", async () => {
    const byDefault = await chat({ model: 'default', svc_parameters: { character_slug: 'test-persona' } });
    expect(byDefault.status).toBe(200);
    expect(byDefault.headers.get('x-svc-model-id')).toBe('thinker');
    expect(lastUpstream().messages[0].content).toBe(`${SERVICE_PROMPT}\n\nYou are the test persona.`);
    const explicit = await call('/chat/completions', { body: { model: 'searcher', messages: [user], svc_parameters: { character_slug: 'test-persona' } } });
    expect(explicit.headers.get('x-svc-model-id')).toBe('searcher');
    expect(lastUpstream().model).toBe('searcher-upstream');
  });

  it('deletes a character with an ADMIN key', async () => {
    expect((await call('/characters/test-persona', { method: 'DELETE', key: inferenceKey })).status).toBe(401);
    expect((await call('/characters/test-persona', { method: 'DELETE', key: adminKey })).body).toEqual({ deleted: true });
    expect((await call('/characters/test-persona')).status).toBe(404);
  });
});
