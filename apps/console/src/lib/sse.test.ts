import { sseData } from './sse';

const streamOf = (...parts: string[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const p of parts) controller.enqueue(new TextEncoder().encode(p));
      controller.close();
    },
  });

describe('sseData', () => {
  it('yields each data payload once, however the bytes are split, and stops at [DONE]', async () => {
    const body = streamOf('data: {"a":', '1}\n\ndata: {"b":2}\r\n\r\n: comment\n\nda', 'ta: {"c":3}\n\ndata: [DONE]\n\ndata: {"late":1}\n\n');
    const seen: string[] = [];
    for await (const d of sseData(body)) seen.push(d);
    expect(seen).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });
});
