import { ScriptedUpstream, startScriptedUpstream } from '@svc/testing';
import { ApiAnswer, chunksOf, streamedText } from './support/chat-http';
import { ChatStack, startChatStack } from './support/chat-stack';

/**
 * `x-retry-count` (issue 18): when the chat service retried the model server (a 503 or a dropped
 * connection before any byte), the answer says how many times; otherwise the header is absent.
 * Through a gateway process, the chat service and a scripted OpenAI-protocol upstream.
 */
const CATALOG = `
models:
  - id: up-retry
    name: Upstream that fails sometimes
    type: text
    engine: { kind: openai-compatible, baseUrl: "\${RETRY_UP}", model: retry-upstream, timeoutMs: 3000, retries: 2, healthCheckIntervalMs: 0 }
    traits: [default]
    pricing: { input: { usd: 0.01, diem: 0.01 }, output: { usd: 0.02, diem: 0.02 } }
    maxCompletionTokens: 64
`;

let stack: ChatStack;
let upstream: ScriptedUpstream;

beforeAll(async () => {
  upstream = await startScriptedUpstream({ completionTokens: 3 });
  stack = await startChatStack({ name: 'retrycount', catalog: CATALOG, env: { RETRY_UP: upstream.baseUrl }, chatEnv: { CHAT_SEED_CHARACTERS: 'false' } });
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await upstream?.close();
}, 60_000);

const chat = (body: Record<string, unknown> = {}): Promise<ApiAnswer> =>
  stack.request('/chat/completions', { body: { model: 'up-retry', messages: [{ role: 'user', content: 'hi' }], ...body } });

describe('x-retry-count', () => {
  it('is 1 on a completion whose upstream answered 503 once, and stays out of the body', async () => {
    upstream.script({ status: 503 });
    const answer = await chat();
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-retry-count')).toBe('1');
    expect(answer.body).not.toHaveProperty('upstreamRetries');
    expect(answer.body.choices[0].message.content).toBe('tok0 tok1 tok2');
  });

  it('is 1 on a stream whose upstream answered 503 once, and no chunk carries it', async () => {
    upstream.script({ status: 503 });
    const answer = await chat({ stream: true });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-retry-count')).toBe('1');
    const chunks = chunksOf(answer.body);
    expect(streamedText(chunks)).toBe('tok0 tok1 tok2');
    for (const chunk of chunks) expect(chunk).not.toHaveProperty('upstreamRetries');
  });

  it('counts every retry: two 503s make 2', async () => {
    upstream.script({ status: 503 }, { status: 503 });
    const answer = await chat();
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-retry-count')).toBe('2');
  });

  it('is absent when the upstream answered at once, and on a failure past the retries', async () => {
    const plain = await chat();
    expect(plain.status).toBe(200);
    expect(plain.headers.get('x-retry-count')).toBeNull();
    const streamed = await chat({ stream: true });
    expect(streamed.headers.get('x-retry-count')).toBeNull();

    upstream.script({ status: 503 }, { status: 503 }, { status: 503 });
    const failed = await chat();
    expect(failed.status).toBe(503);
  });

  it('is on /responses too (the same chat pipeline)', async () => {
    upstream.script({ status: 503 });
    const answer = await stack.request('/responses', { body: { model: 'up-retry', input: 'hi' } });
    expect(answer.status).toBe(200);
    expect(answer.headers.get('x-retry-count')).toBe('1');
    expect(answer.body).not.toHaveProperty('upstreamRetries');
  });
});
