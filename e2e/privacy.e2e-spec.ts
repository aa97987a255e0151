import { randomBytes } from 'node:crypto';
import OpenAI, { toFile } from 'openai';
import sharp from 'sharp';
import { dropTestDatabase, PrivateRedis, redisServerAvailable, RunningPlatform, startPlatform, startPrivateRedis } from '@svc/testing';
import { databaseUrls, pgDump, redisContents } from './support/stores';

/**
 * Privacy (issue 16): a marker sent in every kind of user content (chat system and user turns,
 * plain and streamed, embeddings input, an image prompt and an edit prompt, a parsed document, speech text, a transcription prompt, a
 * queued speech job, a refused request) must not be found afterwards in any log line of any process, in a dump of
 * any database, or in any value of any key of Redis. Real inference (the embedded models), with
 * the bootstrap account's credit, and at trace log level: what the most talkative deployment logs.
 */
const MARKER = `PRIVMARK-${randomBytes(8).toString('hex')}`;

/** The marker as text (any case) and as base64 at each byte alignment: what would be found if it were kept. */
function traces(text: string): string[] {
  const found: string[] = [];
  if (text.toLowerCase().includes(MARKER.toLowerCase())) found.push('text');
  for (let shift = 0; shift < 3; shift++) {
    const b64 = Buffer.concat([Buffer.alloc(shift), Buffer.from(MARKER)]).toString('base64');
    const core = b64.slice(Math.ceil(shift / 3) * 4, Math.floor((shift + MARKER.length) / 3) * 4);
    if (text.includes(core)) found.push(`base64 (shift ${shift})`);
  }
  return found;
}

describe('privacy: prompts, inputs and outputs are not kept', () => {
  let redis: PrivateRedis | undefined;
  let platform: RunningPlatform;
  let client: OpenAI;
  let databases: Record<string, string> = {};
  /** CF-RAY of every request sent: each must be in the logs (the capture works) with no marker beside it. */
  const requestIds: string[] = [];
  let queueId = '';

  beforeAll(async () => {
    // A Redis of its own, so "every key" is exactly the platform's (the shared one is scanned whole otherwise).
    redis = redisServerAvailable() ? await startPrivateRedis() : undefined;
    platform = await startPlatform({ env: { LOG_LEVEL: 'trace', ...(redis ? { REDIS_URL: redis.url } : {}) }, timeoutMs: 120_000 });
    databases = databaseUrls(platform.env);
    client = new OpenAI({ baseURL: platform.apiUrl, apiKey: platform.adminKey, maxRetries: 0 });
  }, 150_000);

  afterAll(async () => {
    await platform?.stop();
    await redis?.stop();
    for (const url of Object.values(databases)) await dropTestDatabase(url).catch(() => undefined);
  });

  const post = (path: string, body: unknown) =>
    fetch(`${platform.apiUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${platform.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const idOf = (headers: Headers) => requestIds.push(headers.get('cf-ray') ?? 'missing CF-RAY');

  it('answers every request that carries the marker, with output that decodes', async () => {
    const messages = [
      { role: 'system' as const, content: `Remember the code ${MARKER}.` },
      { role: 'user' as const, content: `What is the code ${MARKER}?` },
    ];
    const plain = await client.chat.completions.create({ model: 'svc-tiny-random', messages, max_tokens: 8 }).withResponse();
    idOf(plain.response.headers);
    expect(plain.data.choices[0].message.content).toEqual(expect.any(String));
    expect(plain.data.usage?.completion_tokens).toBeGreaterThan(0);

    const streamed = await client.chat.completions
      .create({ model: 'svc-tiny-random', messages, max_tokens: 8, stream: true, stream_options: { include_usage: true } })
      .withResponse();
    idOf(streamed.response.headers);
    const chunks = [];
    for await (const chunk of streamed.data) chunks.push(chunk);
    expect(chunks.some((c) => c.choices[0]?.finish_reason)).toBe(true);
    expect(chunks[chunks.length - 1].usage?.completion_tokens).toBeGreaterThan(0);

    const embedded = await client.embeddings.create({ model: 'text-embedding-3-small', input: [MARKER, `A lamp ${MARKER}`] }).withResponse();
    idOf(embedded.response.headers);
    expect(embedded.data.data.map((d) => d.embedding.length)).toEqual([160, 160]);

    const image = await client.images
      .generate({ model: 'default', prompt: `a red circle ${MARKER}`, size: '256x256', response_format: 'b64_json' })
      .withResponse();
    idOf(image.response.headers);
    expect(await sharp(Buffer.from(image.data.data![0].b64_json!, 'base64')).metadata()).toMatchObject({ format: 'png', width: 256 });

    const red = await sharp({ create: { width: 256, height: 256, channels: 3, background: '#c03030' } })
      .png()
      .toBuffer();
    const edited = await post('/image/edit', { image: red.toString('base64'), prompt: `make it blue ${MARKER}` });
    idOf(edited.headers);
    expect(edited.status).toBe(200);
    expect((await sharp(Buffer.from(await edited.arrayBuffer())).metadata()).width).toBeGreaterThan(0);

    const form = new FormData();
    form.append('file', new Blob([`Notes: ${MARKER}.\n`], { type: 'text/plain' }), 'notes.txt');
    form.append('response_format', 'json');
    const parsed = await fetch(`${platform.apiUrl}/augment/text-parser`, {
      method: 'POST',
      headers: { authorization: `Bearer ${platform.adminKey}` },
      body: form,
    });
    idOf(parsed.headers);
    expect(parsed.status).toBe(200);
    expect(JSON.stringify(await parsed.json())).toContain(MARKER);

    const speech = await client.audio.speech.create({ model: 'tts-1', input: `Say ${MARKER} now.`, voice: 'slt' as never, response_format: 'wav' });
    idOf(speech.headers);
    const wav = Buffer.from(await speech.arrayBuffer());
    expect(wav.subarray(0, 4).toString('ascii')).toBe('RIFF');

    const heard = await client.audio.transcriptions.create({ model: 'whisper-1', file: await toFile(wav, 'speech.wav'), prompt: MARKER }).withResponse();
    idOf(heard.response.headers);
    expect(heard.data.text).toEqual(expect.any(String));

    // A queued job carries its text while it waits; once it has been read out, the text must be gone (not only after /audio/complete).
    const queued = await post('/audio/queue', { model: 'svc-flite', prompt: `Chapter ${MARKER}. The end.`, response_format: 'wav' });
    idOf(queued.headers);
    expect(queued.status).toBe(200);
    queueId = ((await queued.json()) as { queue_id: string }).queue_id;
    let done: Response | undefined;
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 100))) {
      done = await post('/audio/retrieve', { model: 'svc-flite', queue_id: queueId });
      if (done.headers.get('content-type') === 'audio/wav') break;
      await done.arrayBuffer();
    }
    expect(done?.headers.get('content-type')).toBe('audio/wav');
    expect(
      Buffer.from(await done!.arrayBuffer())
        .subarray(0, 4)
        .toString('ascii'),
    ).toBe('RIFF');

    // A refused request is not logged with its body either.
    const refused = await post('/chat/completions', { model: 'svc-tiny-random', messages, max_tokens: -1 });
    idOf(refused.headers);
    expect(refused.status).toBe(400);

    // Settlements and usage rows are written after the answers; batched log lines wait up to 100 ms.
    await new Promise((r) => setTimeout(r, 1_500));
  });

  it('keeps nothing of it in Redis (every key of every database, every value type)', async () => {
    const contents = await redisContents(redis?.url ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    // The scan sees what the platform keeps: the finished job is still there, waiting for /audio/complete.
    expect(contents.entries.some((e) => e.key.includes(queueId))).toBe(true);
    const leaks = contents.entries.filter((e) => traces(e.text).length > 0).map((e) => `${e.key}: ${traces(e.text).join(', ')}`);
    expect(leaks).toEqual([]);
  });

  it('keeps nothing of it in any database (pg_dump of each)', async () => {
    expect(Object.keys(databases).sort()).toEqual(['BILLING_DATABASE_URL', 'CHAT_DATABASE_URL', 'KEYS_DATABASE_URL', 'WALLET_DATABASE_URL']);
    for (const [name, url] of Object.entries(databases)) {
      const dump = await pgDump(url);
      expect(dump).toContain('COPY public.');
      expect({ database: name, traces: traces(dump) }).toEqual({ database: name, traces: [] });
    }
    // The usage rows of these requests are there: the dump would show what they kept.
    expect(await pgDump(databases.BILLING_DATABASE_URL)).toContain(requestIds[0]);
  });

  it('logged every request (by id) and never the marker, through shutdown', async () => {
    await platform.stop();
    const output = platform.output();
    for (const id of requestIds) expect(output).toContain(id);
    const lines = output.split('\n').filter((line) => traces(line).length > 0);
    expect(lines).toEqual([]);
  });
});
