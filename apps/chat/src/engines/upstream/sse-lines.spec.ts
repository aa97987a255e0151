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

  it('joins the data lines of one event, takes bare CR line endings, and keeps a last event the body ends without a blank line', async () => {
    expect(await collect(['data: {"a":\ndata: 1}\n\n', 'data: x\r\rdata: [DONE]'])).toEqual(['{"a":\n1}', 'x', '[DONE]']);
  });
});
