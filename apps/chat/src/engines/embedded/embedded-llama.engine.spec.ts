import { EmbeddedLlamaEngine, toWorkerMessages } from './embedded-llama.engine';
import { workerPrompt } from './generate-message';

describe('toWorkerMessages', () => {
  it('maps the OpenAI roles onto system, user and assistant', () => {
    expect(
      toWorkerMessages([
        { role: 'system', content: 's' },
        { role: 'developer', content: 'd' },
        { role: 'user', content: 'u' },
        { role: 'assistant', content: 'a' },
        { role: 'tool', content: 't', tool_call_id: 'call_1' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'call_2', type: 'function', function: { name: 'f', arguments: '{"x":1}' } }] },
      ]),
    ).toEqual([
      { role: 'system', content: 's' },
      { role: 'system', content: 'd' },
      { role: 'user', content: 'u' },
      { role: 'assistant', content: 'a' },
      { role: 'user', content: 'Result of tool call call_1: t' },
      { role: 'assistant', content: '{"name":"f","arguments":{"x":1}}' },
    ]);
  });
});

describe('workerPrompt', () => {
  it('sends a raw prompt as its text (the worker tokenizes it as it is) and messages for the chat template', () => {
    expect(workerPrompt('Once upon a time')).toEqual({ prompt: 'Once upon a time' });
    expect(workerPrompt([{ role: 'developer', content: 'd' }])).toEqual({ messages: [{ role: 'system', content: 'd' }] });
  });
});

describe('EmbeddedLlamaEngine without a worker', () => {
  const quiet = { debug() {}, info() {}, warn() {}, error() {} };

  it('does not start a process until it is needed', () => {
    const engine = new EmbeddedLlamaEngine({ modelPath: '/nonexistent.gguf', logger: quiet });
    expect(engine.kind).toBe('embedded');
    expect(engine.workerPid).toBeUndefined();
    expect(engine.stats).toEqual({ running: 0, queued: 0 });
  });

  it('rejects an already-aborted request without starting anything', async () => {
    const engine = new EmbeddedLlamaEngine({ modelPath: '/nonexistent.gguf', logger: quiet });
    const controller = new AbortController();
    controller.abort();
    await expect(engine.generate({ messages: [], maxTokens: 1, signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(engine.workerPid).toBeUndefined();
  });

  it('refuses work after close', async () => {
    const engine = new EmbeddedLlamaEngine({ modelPath: '/nonexistent.gguf', logger: quiet });
    await engine.close();
    await expect(engine.ready()).rejects.toThrow(/closed/);
    await expect(engine.generate({ messages: [], maxTokens: 1, signal: new AbortController().signal })).rejects.toThrow(/closed/);
  });
});
