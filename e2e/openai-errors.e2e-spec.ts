import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { dropTestDatabase, FakeOpenAiUpstream, operatorCli, RunningFakeUpstream, RunningPlatform, startFakeOpenAiUpstream, startPlatform } from '@svc/testing';

/**
 * ERROR_STYLE=openai as code written for OpenAI meets it: the official `openai` client reads
 * `err.code`, `err.type` and `err.param` from every refusal (docs/errors.md), and from an error
 * event in a stream. The model is proxied to a fake upstream, so no CPU goes to inference.
 * (openai-python is not checked: it is neither installed here nor packaged by Debian.)
 */
const CATALOG = `
models:
  - id: e2e-errors
    name: E2E error-style model
    type: text
    engine: { kind: openai-compatible, baseUrl: "\${ERRORS_E2E_UPSTREAM_URL}", model: fake-model, timeoutMs: 10000 }
    rateLimitTier: L
    traits: [default]
    pricing: { input: { usd: 0.01, diem: 0.01 }, output: { usd: 0.02, diem: 0.02 } }
    availableContextTokens: 4096
    maxCompletionTokens: 256
`;
const MODEL = 'e2e-errors';
const hello = [{ role: 'user' as const, content: 'Hello' }];

describe('ERROR_STYLE=openai through the official openai client', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-e2e-errors-'));
  let upstream: RunningFakeUpstream & { upstream: FakeOpenAiUpstream };
  let platform: RunningPlatform;
  let cli: ReturnType<typeof operatorCli>;

  beforeAll(async () => {
    upstream = await startFakeOpenAiUpstream({ completionTokens: 6, recordLimit: 0 });
    const catalog = path.join(dir, 'catalog.yaml');
    writeFileSync(catalog, CATALOG);
    platform = await startPlatform({
      env: { SVC_CATALOG_PATH: catalog, ERRORS_E2E_UPSTREAM_URL: upstream.baseUrl, ERROR_STYLE: 'openai', BILLING_MARGIN_WAIT_MS: '0' },
    });
    cli = operatorCli(platform.env);
  }, 180_000);

  afterAll(async () => {
    await platform?.stop();
    await upstream?.close();
    for (const name of ['KEYS_DATABASE_URL', 'BILLING_DATABASE_URL', 'CHAT_DATABASE_URL', 'WALLET_DATABASE_URL'] as const) {
      if (platform?.env[name]) await dropTestDatabase(platform.env[name]).catch(() => undefined);
    }
    rmSync(dir, { recursive: true, force: true });
  });

  const client = (apiKey = platform.adminKey) => new OpenAI({ baseURL: platform.apiUrl, apiKey, maxRetries: 0 });

  /** The client's error for a call that must fail. */
  async function failure(call: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
    const err = await call.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(OpenAI.APIError);
    return err as InstanceType<typeof OpenAI.APIError>;
  }

  /** An INFERENCE key of the bootstrap account (which has credit), with the operator's limits. */
  async function limitedKey(...limits: string[]): Promise<string> {
    const res = await fetch(`${platform.apiUrl}/api_keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${platform.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ apiKeyType: 'INFERENCE', description: 'e2e error style' }),
    });
    const { data } = (await res.json()) as { data: { apiKey: string; id: string } };
    await cli.svc('limits', 'set', '--key', data.id, ...limits);
    // The gateways hear of the change over NATS.
    await new Promise((r) => setTimeout(r, 300));
    return data.apiKey;
  }

  it("publishes OpenAI's error shape in the OpenAPI document", async () => {
    const document = (await (await fetch(`${platform.apiUrl}/openapi.json`)).json()) as { paths: Record<string, { post: { responses: object } }> };
    expect(JSON.stringify(document.paths['/chat/completions'].post.responses['401' as keyof object])).toContain('OpenAiError');
  });

  it('401 invalid_api_key for a key that does not exist', async () => {
    const err = await failure(client('svc_no_such_key_0123456789').chat.completions.create({ model: MODEL, messages: hello }));
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect([err.status, err.type, err.code, err.param]).toEqual([401, 'authentication_error', 'invalid_api_key', null]);
    expect(err.message).toMatch(/Invalid API key/);
    expect(err.requestID).toMatch(/^[0-9a-f]{16}$/);
  });

  it('404 model_not_found for a model the catalog does not have', async () => {
    const err = await failure(client().chat.completions.create({ model: 'no-such-model', messages: hello }));
    expect(err).toBeInstanceOf(OpenAI.NotFoundError);
    expect([err.status, err.type, err.code, err.param]).toEqual([404, 'invalid_request_error', 'model_not_found', null]);
    expect(err.message).toMatch(/no-such-model/);
  });

  it('400 names the invalid parameter', async () => {
    const err = await failure(client().chat.completions.create({ model: MODEL, messages: hello, temperature: 7 }));
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect([err.status, err.type, err.code, err.param]).toEqual([400, 'invalid_request_error', 'invalid_value', 'temperature']);
    expect(err.message).toMatch(/temperature/);
  });

  it('402 insufficient_quota for a key whose account has no credit', async () => {
    const account = await cli.svc('accounts', 'create', '--name', `error style ${Date.now()}`);
    const key = await cli.svc('keys', 'create', '--account', account.id ?? account.accountId, '--type', 'INFERENCE', '--description', 'no credit');
    const err = await failure(client(key.apiKey as string).chat.completions.create({ model: MODEL, messages: hello, max_tokens: 8 }));
    expect([err.status, err.type, err.code, err.param]).toEqual([402, 'insufficient_quota', 'insufficient_quota', null]);
    expect(err.message).toMatch(/Insufficient balance/);
  });

  it('429 rate_limit_exceeded, typed requests or tokens by the limit that refused it, with its retry headers', async () => {
    const perMinute = client(await limitedKey('--rpm', '1'));
    await perMinute.chat.completions.create({ model: MODEL, messages: hello, max_tokens: 4 });
    const requests = await failure(perMinute.chat.completions.create({ model: MODEL, messages: hello, max_tokens: 4 }));
    expect(requests).toBeInstanceOf(OpenAI.RateLimitError);
    expect([requests.status, requests.type, requests.code, requests.param]).toEqual([429, 'requests', 'rate_limit_exceeded', null]);
    expect(Number(requests.headers?.get('retry-after-ms'))).toBeGreaterThan(0);

    const tooLarge = await failure(client(await limitedKey('--tpm', '10')).chat.completions.create({ model: MODEL, messages: hello, max_tokens: 200 }));
    expect([tooLarge.status, tooLarge.type, tooLarge.code]).toEqual([429, 'tokens', 'rate_limit_exceeded']);
    expect(tooLarge.headers?.get('x-should-retry')).toBe('false');
  });

  it("ends a stream cut after its first chunks with an error event the client throws with OpenAI's fields", async () => {
    upstream.upstream.configure({ failure: 'drop-mid-stream', dropAfterTokens: 2 });
    try {
      const stream = await client().chat.completions.create({ model: MODEL, messages: hello, max_tokens: 6, stream: true });
      let text = '';
      const err = await failure(
        (async () => {
          for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
        })(),
      );
      expect(text).toContain('tok1');
      expect([err.type, err.code, err.param]).toEqual(['server_error', 'upstream_error', null]);
    } finally {
      upstream.upstream.configure({ failure: 'none' });
    }
  });
});
