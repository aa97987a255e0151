import { sseData } from './sse-lines';

async function collect(parts: string[]): Promise<string[]> {
  async function* body() {
    for (const p of parts) yield Buffer.from(p);
  }
  const out: string[] = [];
  for await (const d of sseData(body())) out.push(d);
  return out;
}

describe('SSE data lines', () => {
  it('reassembles events split across chunks and CRLF endings', async () => {
    expect(await collect(['data: {"a"', ':1}\r\n\r\n: comment\n', 'event: x\ndata: [DONE]\n\n'])).toEqual(['{"a":1}', '[DONE]']);
  });

  it('keeps multi-byte characters split across chunks intact', async () => {
    const bytes = Buffer.from('data: héllo\n\n');
    async function* body() {
      yield bytes.subarray(0, 8);
      yield bytes.subarray(8);
    }
    const out: string[] = [];
    for await (const d of sseData(body())) out.push(d);
    expect(out).toEqual(['héllo']);
  });
});
