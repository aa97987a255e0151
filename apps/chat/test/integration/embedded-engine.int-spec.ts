import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ChatMessage } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { writeTinyGguf } from '@svc/gguf';
import { GenerateOptions, GenerateRequest } from '../../src/engines/engine';
import { EmbeddedLlamaEngine, EngineLogger } from '../../src/engines/embedded/embedded-llama.engine';

// Real node-llama-cpp against the generated tiny GGUF (random weights: the text is meaningless,
// so the assertions are about mechanics, not content).

const SECRET = 'zebra-marmalade-7421';
const messages: ChatMessage[] = [
  { role: 'system', content: 'You answer briefly.' },
  { role: 'user', content: `Tell me about the river and the library. ${SECRET}` },
];

function request(overrides: Partial<GenerateOptions & { messages: ChatMessage[] }> = {}): GenerateRequest {
  return { messages, maxTokens: 24, temperature: 0.9, seed: 11, signal: new AbortController().signal, ...overrides };
}

describe('EmbeddedLlamaEngine (real model)', () => {
  let dir: string;
  let engine: EmbeddedLlamaEngine;
  const logLines: string[] = [];
  const logger: EngineLogger = {
    debug: (obj, msg) => logLines.push(JSON.stringify({ obj, msg })),
    info: (obj, msg) => logLines.push(JSON.stringify({ obj, msg })),
    warn: (obj, msg) => logLines.push(JSON.stringify({ obj, msg })),
    error: (obj, msg) => logLines.push(JSON.stringify({ obj, msg })),
  };

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'embedded-engine-'));
    const modelPath = path.join(dir, 'svc-tiny-random.gguf');
    writeTinyGguf(modelPath);
    engine = new EmbeddedLlamaEngine({ modelPath, contextSize: 1024, maxParallel: 2, maxQueue: 4, logger, restartBackoffMs: { min: 50, max: 500 } });
    await engine.ready();
  });

  afterAll(async () => {
    await engine?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('generates with the chat template applied and counts tokens', async () => {
    const result = await engine.generate(request());
    expect(result.text.length).toBeGreaterThan(0);
    expect(result.promptTokens).toBeGreaterThan(10);
    expect(result.completionTokens).toBeGreaterThan(0);
    expect(result.completionTokens).toBeLessThanOrEqual(24);
    const longer = await engine.generate(request({ messages: [...messages, { role: 'assistant', content: 'Yes.' }, { role: 'user', content: 'More?' }] }));
    expect(longer.promptTokens).toBeGreaterThan(result.promptTokens);
  });

  it('continues a raw prompt with no chat template, and counts it exactly as the run does', async () => {
    const prompt = `The river and the library ${SECRET}`;
    const raw = { prompt, maxTokens: 8, temperature: 0.9, seed: 3, signal: new AbortController().signal };
    const result = await engine.generate(raw);
    expect(result.completionTokens).toBeGreaterThan(0);
    // The begin-of-text token and the text's own tokens: never more than its bytes, plus one.
    expect(result.promptTokens).toBeGreaterThan(1);
    expect(result.promptTokens).toBeLessThanOrEqual(Buffer.byteLength(prompt) + 1);
    expect(await engine.countPromptTokens(prompt)).toBe(result.promptTokens);
    // The same text as a chat turn is wrapped in the model's template (ChatML): more tokens.
    const turn: ChatMessage[] = [{ role: 'user', content: prompt }];
    const chat = await engine.generate(request({ messages: turn, maxTokens: 1 }));
    expect(result.promptTokens).toBeLessThan(chat.promptTokens);
    expect(await engine.countPromptTokens(turn)).toBe(chat.promptTokens);
    // A seed repeats a continuation; log probabilities come one per generated token, as on chat.
    const again = await engine.generate({ ...raw, logprobs: true, topLogprobs: 2 });
    expect(again.text).toBe(result.text);
    expect(again.logprobs?.content?.length).toBe(again.completionTokens);
  });

  it('streams pieces that concatenate to the final text, repeatably for a seed', async () => {
    const pieces: string[] = [];
    const streamed = await engine.generate(request({ seed: 5 }), (piece) => {
      pieces.push(piece);
    });
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe(streamed.text);
    expect(streamed.completionTokens).toBeGreaterThan(0);
    const again = await engine.generate(request({ seed: 5 }));
    expect(again.text).toBe(streamed.text);
  });

  it('stops at maxTokens with finishReason length', async () => {
    const result = await engine.generate(request({ maxTokens: 5 }));
    expect(result).toMatchObject({ finishReason: 'length', completionTokens: 5 });
  });

  it('cuts at a stop string and never emits it', async () => {
    const full = await engine.generate(request({ seed: 21, maxTokens: 40 }));
    const stop = full.text.slice(12, 16);
    const cut = full.text.indexOf(stop);
    expect(cut).toBeGreaterThan(0);
    const pieces: string[] = [];
    const stopped = await engine.generate(request({ seed: 21, maxTokens: 40, stop: [stop] }), (p) => {
      pieces.push(p);
    });
    expect(stopped.finishReason).toBe('stop');
    expect(stopped.text).toBe(full.text.slice(0, cut));
    expect(pieces.join('')).toBe(stopped.text);
    expect(stopped.completionTokens).toBeLessThan(full.completionTokens);
  });

  it('applies back-pressure: the worker waits for a slow consumer', async () => {
    const slow = await engine.generate(request({ maxTokens: 12 }), () => new Promise((r) => setTimeout(r, 15)));
    expect(slow.completionTokens).toBe(12);

    // A consumer stuck on its first piece: the worker may only run a window of pieces ahead.
    const controller = new AbortController();
    const stuck = engine.generate(request({ maxTokens: 500, signal: controller.signal }), () => new Promise((r) => setTimeout(r, 300)));
    setTimeout(() => controller.abort(), 150);
    await expect(stuck).rejects.toMatchObject({ name: 'AbortError' });
    await waitFor(() => engine.stats.running === 0);
    const finished = logLines.map((l) => JSON.parse(l) as { msg: string; obj: { completionTokens?: number } }).filter((l) => l.msg === 'generation finished');
    // The piece window (16) plus the few tokens a piece may hold (partial UTF-8) and the one in flight.
    expect(finished.at(-1)?.obj.completionTokens).toBeLessThanOrEqual(22);
  });

  it("rejects with the consumer's error when onText throws, and keeps serving", async () => {
    const boom = new Error('client went away');
    await expect(engine.generate(request(), () => Promise.reject(boom))).rejects.toBe(boom);
    await expect(engine.generate(request({ maxTokens: 3 }))).resolves.toMatchObject({ completionTokens: 3 });
  });

  it('stops promptly when the signal aborts', async () => {
    const controller = new AbortController();
    let abortedAt = 0;
    const pending = engine.generate(request({ maxTokens: 100_000, signal: controller.signal }), () => {
      if (!abortedAt) {
        abortedAt = Date.now();
        controller.abort();
      }
    });
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    expect(Date.now() - abortedAt).toBeLessThan(200);
    await waitFor(() => engine.stats.running === 0);
  });

  it('rejects prompts longer than the context', async () => {
    const huge: ChatMessage[] = [{ role: 'user', content: 'river library '.repeat(600) }];
    await expect(engine.generate(request({ messages: huge }))).rejects.toMatchObject({ code: ErrorCode.Validation });
  });

  it('samples afresh for each request without a seed (not once per epoch second)', async () => {
    const answers = await Promise.all([1, 2, 3, 4].map(() => engine.generate(request({ seed: undefined, maxTokens: 16 }))));
    expect(new Set(answers.map((a) => a.text)).size).toBeGreaterThan(1);
  });

  it('runs two generations at once', async () => {
    const started = Date.now();
    const [a, b] = await Promise.all([engine.generate(request({ seed: 1, maxTokens: 64 })), engine.generate(request({ seed: 2, maxTokens: 64 }))]);
    expect(a.completionTokens).toBeGreaterThan(0);
    expect(b.completionTokens).toBeGreaterThan(0);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('fails in-flight generations clearly when the worker dies, then restarts it', async () => {
    const pid = engine.workerPid!;
    let killed = false;
    const pending = engine.generate(request({ maxTokens: 100_000 }), async () => {
      if (!killed) {
        killed = true;
        process.kill(pid, 'SIGKILL');
      }
      await new Promise((r) => setTimeout(r, 5));
    });
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ code: ErrorCode.ServiceUnavailable, message: expect.stringMatching(/stopped during generation.*SIGKILL/) });

    const next = await engine.generate(request({ maxTokens: 5 }));
    expect(next.completionTokens).toBe(5);
    expect(engine.workerPid).not.toBe(pid);
  });

  it('reports a file that is not a loadable model without crashing the caller', async () => {
    const badPath = path.join(dir, 'broken.gguf');
    fs.writeFileSync(badPath, 'this is not a GGUF file');
    const broken = new EmbeddedLlamaEngine({ modelPath: badPath, logger });
    try {
      await expect(broken.ready()).rejects.toMatchObject({ code: ErrorCode.ServiceUnavailable, message: expect.stringMatching(/could not load the model/) });
      await expect(broken.generate(request())).rejects.toThrow(/next attempt in/);
    } finally {
      await broken.close();
    }
  });

  it('settles ready() when closed while the model is still loading', async () => {
    const early = new EmbeddedLlamaEngine({ modelPath: path.join(dir, 'svc-tiny-random.gguf'), logger });
    const loading = early.ready();
    await early.close();
    await expect(loading).rejects.toThrow(/closed/);
  });

  it('never logs prompts or generated text', () => {
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('\n')).not.toContain(SECRET);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
