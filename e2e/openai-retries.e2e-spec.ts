import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import OpenAI from 'openai';
import { REPO_ROOT } from '@svc/config';
import { dropTestDatabase, RunningFakeUpstream, RunningPlatform, startFakeOpenAiUpstream, startPlatform } from '@svc/testing';

/**
 * The official `openai` client with its default retries (2) against a per-key rate limit: it
 * waits what `retry-after-ms` says, gets through, and is never taken for an abuser. A 3 s window
 * (RATE_LIMIT_WINDOW_MS) and an abuse threshold of 3 keep it short; the rules are the spec's.
 */
const run = promisify(execFile);
const CATALOG = `
models:
  - id: e2e-retry
    name: E2E retry model
    type: text
    engine: { kind: openai-compatible, baseUrl: "\${RETRY_E2E_UPSTREAM_URL}", model: fake-model, timeoutMs: 10000 }
    rateLimitTier: L
    traits: [default]
    pricing: { input: { usd: 0.01, diem: 0.01 }, output: { usd: 0.02, diem: 0.02 } }
    availableContextTokens: 4096
    maxCompletionTokens: 256
`;
const WINDOW_MS = 3_000;
const ABUSE_MAX_FAILURES = 3;
/** At 2 per window, every second call after the first two must wait: at least 5 429s, more than the threshold. */
const CALLS = 12;

interface Exchange {
  sentAt: number;
  answeredAt: number;
  status: number;
  retryAfterMs: number | null;
}

describe('the openai client against a per-key rate limit', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-e2e-retry-'));
  let upstream: RunningFakeUpstream;
  let platform: RunningPlatform;

  beforeAll(async () => {
    upstream = await startFakeOpenAiUpstream({ completionTokens: 4, recordLimit: 0 });
    const catalog = path.join(dir, 'catalog.yaml');
    writeFileSync(catalog, CATALOG);
    platform = await startPlatform({
      env: {
        SVC_CATALOG_PATH: catalog,
        RETRY_E2E_UPSTREAM_URL: upstream.baseUrl,
        RATE_LIMIT_WINDOW_MS: String(WINDOW_MS),
        ABUSE_MAX_FAILURES: String(ABUSE_MAX_FAILURES),
      },
    });
  }, 180_000);

  afterAll(async () => {
    await platform?.stop();
    await upstream?.close();
    for (const name of ['KEYS_DATABASE_URL', 'BILLING_DATABASE_URL', 'CHAT_DATABASE_URL'] as const) {
      if (platform?.env[name]) await dropTestDatabase(platform.env[name]).catch(() => undefined);
    }
    rmSync(dir, { recursive: true, force: true });
  });

  /** A new INFERENCE key limited to 2 requests per window by the operator CLI. */
  async function limitedKey(): Promise<string> {
    const res = await fetch(`${platform.apiUrl}/api_keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${platform.adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ apiKeyType: 'INFERENCE', description: 'e2e retries' }),
    });
    const { data } = (await res.json()) as { data: { apiKey: string; id: string } };
    await run(process.execPath, [path.join(REPO_ROOT, 'dist/apps/keys/src/cli/main.js'), 'limits', 'set', '--key', data.id, '--rpm', '2'], {
      cwd: REPO_ROOT,
      env: { ...process.env, KEYS_DATABASE_URL: platform.env.KEYS_DATABASE_URL, NATS_URL: platform.env.NATS_URL },
    });
    await new Promise((r) => setTimeout(r, 300));
    return data.apiKey;
  }

  it('gives the client a request_id, the same as CF-RAY, on answers and on errors', async () => {
    const client = new OpenAI({ baseURL: platform.apiUrl, apiKey: platform.adminKey, maxRetries: 0 });
    const { data, request_id, response } = await client.chat.completions
      .create({ model: 'e2e-retry', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 4 })
      .withResponse();
    expect(data.choices).toHaveLength(1);
    expect(request_id).toMatch(/^[0-9a-f]{16}$/);
    expect(response.headers.get('cf-ray')).toBe(request_id);
    const failed = await client.chat.completions
      .create({ model: 'no-such-model', messages: [{ role: 'user', content: 'Hello' }] })
      .catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(OpenAI.APIError);
    const error = failed as InstanceType<typeof OpenAI.APIError>;
    expect(error.requestID).toMatch(/^[0-9a-f]{16}$/);
    expect(error.headers?.get('cf-ray')).toBe(error.requestID);
  });

  it('waits for retry-after on each 429, gets every answer, and its key and address stay unblocked', async () => {
    const key = await limitedKey();
    const exchanges: Exchange[] = [];
    // Records what the client sent and got; the client's own retry logic is untouched.
    const recording: typeof fetch = async (input, init) => {
      const sentAt = Date.now();
      const res = await fetch(input, init);
      const ms = res.headers.get('retry-after-ms');
      exchanges.push({ sentAt, answeredAt: Date.now(), status: res.status, retryAfterMs: ms === null ? null : Number(ms) });
      return res;
    };
    const client = new OpenAI({ baseURL: platform.apiUrl, apiKey: key, fetch: recording });
    expect(client.maxRetries).toBe(2);

    const started = Date.now();
    for (let i = 0; i < CALLS; i++) {
      const completion = await client.chat.completions.create({ model: 'e2e-retry', messages: [{ role: 'user', content: 'Hello' }], max_tokens: 4 });
      expect(completion.choices[0].message.content).toBeTruthy();
    }
    const elapsed = Date.now() - started;

    const refused = exchanges.filter((x) => x.status === 429);
    // More 429s than the abuse threshold, within its 30 s window.
    expect(refused.length).toBeGreaterThan(ABUSE_MAX_FAILURES);
    expect(exchanges.filter((x) => x.status === 200)).toHaveLength(CALLS);
    exchanges.forEach((x, i) => {
      if (x.status !== 429) return;
      expect(x.retryAfterMs).toBeGreaterThan(0);
      expect(x.retryAfterMs).toBeLessThanOrEqual(WINDOW_MS);
      // The retry went out no sooner than retry-after-ms after the 429 arrived.
      expect(exchanges[i + 1].sentAt - x.answeredAt).toBeGreaterThanOrEqual((x.retryAfterMs as number) - 5);
    });
    const waited = refused.reduce((sum, x) => sum + (x.retryAfterMs as number), 0);
    expect(elapsed).toBeGreaterThanOrEqual(waited);
    // 12 calls at 2 per 3 s window: at least 5 windows of waiting.
    expect(elapsed).toBeGreaterThan(5 * WINDOW_MS);

    // Neither the key nor its address was blocked.
    expect((await fetch(`${platform.apiUrl}/models`)).status).toBe(200);
    await new Promise((r) => setTimeout(r, WINDOW_MS));
    const after = await fetch(`${platform.apiUrl}/api_keys/rate_limits`, { headers: { authorization: `Bearer ${key}` } });
    expect(after.status).toBe(200);
    const log = (await (await fetch(`${platform.apiUrl}/api_keys/rate_limits/log`, { headers: { authorization: `Bearer ${platform.adminKey}` } })).json()) as {
      data: Array<{ rateLimitType: string }>;
    };
    expect(log.data.map((hit) => hit.rateLimitType)).not.toContain('FAILED_REQUESTS');
    expect(log.data.filter((hit) => hit.rateLimitType === 'RPM')).toHaveLength(refused.length);
  });
});
