import OpenAI from 'openai';
import { RunningPlatform, startPlatform } from '@svc/testing';

/**
 * The whole platform started as a user starts it, driven by the official `openai` client and
 * plain HTTP: chat (plain and streamed), auth failures, key management, headers and errors.
 */
describe('platform end to end', () => {
  let platform: RunningPlatform;
  let admin: OpenAI;

  beforeAll(async () => {
    platform = await startPlatform({ env: { BODY_LIMIT_BYTES: String(256 * 1024) } });
    admin = new OpenAI({ baseURL: platform.apiUrl, apiKey: platform.adminKey, maxRetries: 0 });
  }, 120_000);

  afterAll(async () => {
    await platform?.stop();
  });

  // Response bodies are asserted field by field; their static type adds nothing here.
  const json = (res: Response) => res.json() as Promise<any>;
  const http = (path: string, init: RequestInit = {}) => fetch(`${platform.apiUrl}${path}`, init);
  const authed = (key: string, extra: Record<string, string> = {}) => ({ authorization: `Bearer ${key}`, 'content-type': 'application/json', ...extra });

  it('reports every service healthy on /healthz without a key', async () => {
    const res = await fetch(`${platform.baseUrl}/healthz`);
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.missing).toEqual([]);
    expect(Object.keys(body.services).sort()).toEqual(['audio', 'billing', 'chat', 'keys', 'media', 'wallet']);
    expect(res.headers.get('cf-ray')).toMatch(/^[0-9a-f]{16}$/);
  });

  it('lists models, traits and compatibility mapping without a key', async () => {
    const models = await json(await http('/models?type=text'));
    expect(models.object).toBe('list');
    expect(models.data.map((m: { id: string }) => m.id)).toContain('svc-tiny-random');
    expect(models.data[0].model_spec.pricing.input.usd).toEqual(expect.any(Number));
    const traits = await json(await http('/models/traits'));
    expect(models.data.map((m: { id: string }) => m.id)).toContain(traits.data.default);
    const compat = await json(await http('/models/compatibility_mapping'));
    expect(compat.data['gpt-4o-mini']).toBe(traits.data.default);
    const bad = await http('/models?type=nonsense');
    expect(bad.status).toBe(400);
    expect((await json(bad)).details.type._errors.length).toBeGreaterThan(0);
  });

  it('answers a chat completion through the official client with usage and the spec headers', async () => {
    const { data, response } = await admin.chat.completions
      .create({ model: 'svc-tiny-random', messages: [{ role: 'user', content: 'Hello there' }], max_tokens: 8, temperature: 0 })
      .withResponse();
    expect(data.object).toBe('chat.completion');
    expect(data.model).toBe('svc-tiny-random');
    expect(typeof data.choices[0].message.content).toBe('string');
    expect(['stop', 'length']).toContain(data.choices[0].finish_reason);
    expect(data.usage?.prompt_tokens).toBeGreaterThan(0);
    expect(data.usage?.completion_tokens).toBeGreaterThan(0);
    expect(data.usage?.completion_tokens).toBeLessThanOrEqual(8);
    expect(response.headers.get('x-svc-model-id')).toBe('svc-tiny-random');
    expect(response.headers.get('x-svc-model-name')).toContain('Tiny');
    expect(response.headers.get('x-svc-version')).toBeTruthy();
    expect(response.headers.get('cf-ray')).toMatch(/^[0-9a-f]{16}$/);
    expect(response.headers.get('date')).toBeTruthy();
  });

  it('resolves the default trait and OpenAI compatibility names', async () => {
    const { data: traits } = await json(await http('/models/traits'));
    const viaTrait = await admin.chat.completions.create({ model: 'default', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 2 });
    expect(viaTrait.model).toBe(traits.default);
    const viaCompat = await admin.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 2 });
    expect(viaCompat.model).toBe(traits.default);
  });

  it('the default model takes a 1,500-token conversation with a long system prompt (2,048-token context, issue 17)', async () => {
    const notes = Array.from(
      { length: 56 },
      (_, i) => `Package tool${i} is a small command line program that converts files between formats and prints a short report for each file it reads.`,
    );
    const data = await admin.chat.completions.create({
      model: 'default',
      messages: [
        { role: 'system', content: `You answer questions about these packages. ${notes.join(' ')}` },
        { role: 'user', content: 'What is tool3?' },
        { role: 'assistant', content: 'tool3 is a small command line program that converts files between formats.' },
        { role: 'user', content: 'And what does tool17 print?' },
      ],
      max_tokens: 24,
    });
    expect(data.model).toBe('svc-zoo-chat');
    expect(data.usage?.prompt_tokens).toBeGreaterThanOrEqual(1_500);
    expect(data.usage?.completion_tokens).toBeGreaterThan(0);
    expect(data.choices[0].message.content?.trim().length).toBeGreaterThan(0);
  });

  it('streams chunks ending with finish_reason and a usage chunk', async () => {
    const stream = await admin.chat.completions.create({
      model: 'svc-tiny-random',
      messages: [{ role: 'user', content: 'Tell me a story' }],
      max_tokens: 12,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    const finish = chunks.find((c) => c.choices[0]?.finish_reason);
    expect(['stop', 'length']).toContain(finish?.choices[0].finish_reason);
    const usage = chunks[chunks.length - 1].usage;
    expect(usage?.completion_tokens).toBeGreaterThan(0);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
  });

  it('sends SSE headers and data: [DONE] on the raw stream', async () => {
    const res = await http('/chat/completions', {
      method: 'POST',
      headers: authed(platform.adminKey),
      body: JSON.stringify({ model: 'svc-tiny-random', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 4, stream: true }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    expect(res.headers.get('x-svc-model-id')).toBe('svc-tiny-random');
    expect(res.headers.get('cf-ray')).toBeTruthy();
    const text = await res.text();
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  it('stops generating when the client disconnects mid-stream', async () => {
    const controller = new AbortController();
    const res = await http('/chat/completions', {
      method: 'POST',
      headers: authed(platform.adminKey),
      body: JSON.stringify({ model: 'svc-tiny-random', messages: [{ role: 'user', content: 'Go on forever' }], max_tokens: 500, stream: true }),
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    const requestId = res.headers.get('cf-ray')!;
    controller.abort();
    const deadline = Date.now() + 10_000;
    while (
      !platform
        .output()
        .split('\n')
        .some((l) => l.includes(requestId) && l.includes('stream cancelled')) &&
      Date.now() < deadline
    ) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(
      platform
        .output()
        .split('\n')
        .some((l) => l.includes(requestId) && l.includes('stream cancelled')),
    ).toBe(true);
  });

  it('refuses missing and invalid keys with 401 StandardError', async () => {
    const body = JSON.stringify({ model: 'svc-tiny-random', messages: [{ role: 'user', content: 'Hi' }] });
    const missing = await http('/chat/completions', { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(missing.status).toBe(401);
    expect(await json(missing)).toEqual({ error: expect.stringContaining('Missing API key') });
    const bad = new OpenAI({ baseURL: platform.apiUrl, apiKey: 'svc_not_a_real_key', maxRetries: 0 });
    await expect(bad.chat.completions.create({ model: 'svc-tiny-random', messages: [{ role: 'user', content: 'Hi' }] })).rejects.toMatchObject({ status: 401 });
  });

  it('manages API keys: create, use, list, get, update, delete, and refuses the deleted key', async () => {
    const created = await json(
      await http('/api_keys', {
        method: 'POST',
        headers: authed(platform.adminKey),
        body: JSON.stringify({ apiKeyType: 'INFERENCE', description: 'e2e inference', expiresAt: '' }),
      }),
    );
    expect(created.success).toBe(true);
    const secret: string = created.data.apiKey;
    expect(secret.endsWith(created.data.last6Chars)).toBe(true);

    const inference = new OpenAI({ baseURL: platform.apiUrl, apiKey: secret, maxRetries: 0 });
    const done = await inference.chat.completions.create({ model: 'svc-tiny-random', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 2 });
    expect(done.object).toBe('chat.completion');

    const adminOnly = await http('/api_keys', { headers: authed(secret) });
    expect(adminOnly.status).toBe(401);
    expect(await json(adminOnly)).toEqual({ error: 'Admin API key required' });

    const list = await json(await http('/api_keys', { headers: authed(platform.adminKey) }));
    const listed = list.data.find((k: { id: string }) => k.id === created.data.id);
    expect(listed).toMatchObject({ apiKeyType: 'INFERENCE', description: 'e2e inference', last6Chars: created.data.last6Chars });
    expect(JSON.stringify(list)).not.toContain(secret);
    expect(listed.usage.trailingSevenDays).toEqual({ usd: expect.any(String), diem: expect.any(String), vcu: expect.any(String) });

    const patched = await json(
      await http('/api_keys', { method: 'PATCH', headers: authed(platform.adminKey), body: JSON.stringify({ id: created.data.id, description: 'renamed' }) }),
    );
    expect(patched.data.description).toBe('renamed');
    const one = await json(await http(`/api_keys/${created.data.id}`, { headers: authed(platform.adminKey) }));
    expect(one.data.description).toBe('renamed');

    const deleted = await http(`/api_keys?id=${created.data.id}`, { method: 'DELETE', headers: authed(platform.adminKey) });
    expect(await json(deleted)).toEqual({ success: true });
    await new Promise((r) => setTimeout(r, 300));
    await expect(
      inference.chat.completions.create({ model: 'svc-tiny-random', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 2 }),
    ).rejects.toMatchObject({ status: 401 });
  });

  it('rejects bad input in the spec error shapes, never 500', async () => {
    const noMessages = await http('/chat/completions', {
      method: 'POST',
      headers: authed(platform.adminKey),
      body: JSON.stringify({ model: 'svc-tiny-random' }),
    });
    expect(noMessages.status).toBe(400);
    const detailed = await json(noMessages);
    expect(detailed.error).toEqual(expect.any(String));
    expect(detailed.details.messages._errors.length).toBeGreaterThan(0);

    const malformed = await http('/chat/completions', { method: 'POST', headers: authed(platform.adminKey), body: '{"model": ' });
    expect(malformed.status).toBe(400);
    expect((await json(malformed)).error).toMatch(/Malformed JSON/);

    const unknownModel = await http('/chat/completions', {
      method: 'POST',
      headers: authed(platform.adminKey),
      body: JSON.stringify({ model: 'nope', messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(unknownModel.status).toBe(404);
    expect((await json(unknownModel)).error).toMatch(/nope/);

    const tooBig = await http('/chat/completions', {
      method: 'POST',
      headers: authed(platform.adminKey),
      body: JSON.stringify({ model: 'svc-tiny-random', messages: [{ role: 'user', content: 'x'.repeat(300 * 1024) }] }),
    });
    expect(tooBig.status).toBe(413);
    expect(await json(tooBig)).toEqual({ error: expect.any(String) });

    const noRoute = await http('/no/such/route', { headers: authed(platform.adminKey) });
    expect(noRoute.status).toBe(404);
    expect(await json(noRoute)).toEqual({ error: expect.any(String) });
    expect(noRoute.headers.get('cf-ray')).toBeTruthy();
  });

  it('compresses responses when Accept-Encoding asks', async () => {
    const res = await fetch(`${platform.apiUrl}/models`, { headers: { 'accept-encoding': 'gzip' } });
    expect(res.headers.get('content-encoding')).toBe('gzip');
    expect((await json(res)).object).toBe('list');
  });

  it('never writes prompts or generated text to logs', async () => {
    const marker = `PRIVATE-MARKER-${Date.now()}`;
    const res = await admin.chat.completions.create({ model: 'svc-tiny-random', messages: [{ role: 'user', content: `secret ${marker}` }], max_tokens: 16 });
    const content = res.choices[0].message.content ?? '';
    await new Promise((r) => setTimeout(r, 300));
    expect(platform.output()).not.toContain(marker);
    if (content.trim().length >= 12) expect(platform.output()).not.toContain(content.trim());
  });
});
