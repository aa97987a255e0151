import { modelPricingSchema } from './pricing.schema';
import { PricingError, quote } from './quote';

const text = { input: { usd: 0.01, diem: 0.02 }, output: { usd: 0.02, diem: 0.04 } };

describe('quote', () => {
  it('prices text per million tokens, per line, in both currencies', () => {
    const q = quote('m', text, { kind: 'text', promptTokens: 13, completionTokens: 8 });
    expect(q.lines.map((l) => [l.type, l.sku, l.quantity, l.amount.usd, l.amount.diem])).toEqual([
      ['Input', 'm-llm-input-mtoken', 13, 130n, 260n],
      ['Output', 'm-llm-output-mtoken', 8, 160n, 320n],
    ]);
    expect(q.total).toEqual({ usd: 290n, diem: 580n });
    expect(q.lines[0].unitPrice).toEqual({ usd: 10_000_000n, diem: 20_000_000n });
  });

  it('rounds each line up to the nano-unit', () => {
    // 0.0000001 USD per million tokens: 3 tokens cost 3e-13 USD, billed as 1 nano-USD.
    const q = quote('m', { input: { usd: 0.0000001, diem: 0 }, output: { usd: 0, diem: 0 } }, { kind: 'text', promptTokens: 3, completionTokens: 0 });
    expect(q.total).toEqual({ usd: 1n, diem: 0n });
  });

  it('bills cached and cache-written prompt tokens at their own prices, out of the prompt', () => {
    const pricing = { ...text, cache_input: { usd: 0.005, diem: 0.01 }, cache_write: { usd: 0.0125, diem: 0.025 } };
    const q = quote('m', pricing, { kind: 'text', promptTokens: 1000, completionTokens: 0, cachedPromptTokens: 600, cacheWriteTokens: 100 });
    expect(q.lines.map((l) => [l.type, l.quantity, l.amount.usd])).toEqual([
      ['Input', 300, 3_000n],
      ['Cache Read', 600, 3_000n],
      ['Cache Write', 100, 1_250n],
    ]);
  });

  it('bills web searches and successful scrapes per request with the chat completion, free when unpriced', () => {
    const pricing = modelPricingSchema.parse({ ...text, web_search: { usd: 0.005, diem: 0.01 }, web_scrape: { usd: 0.002, diem: 0.004 } });
    const q = quote('m', pricing, { kind: 'text', promptTokens: 13, completionTokens: 8, webSearches: 1, webScrapes: 3 });
    expect(q.lines.map((l) => [l.type, l.sku, l.unitType, l.quantity, l.amount.usd, l.amount.diem])).toEqual([
      ['Input', 'm-llm-input-mtoken', 'tokens', 13, 130n, 260n],
      ['Output', 'm-llm-output-mtoken', 'tokens', 8, 160n, 320n],
      ['Web Search', 'm-web-search-request', 'requests', 1, 5_000_000n, 10_000_000n],
      ['Web Scrape', 'm-web-scrape-request', 'requests', 3, 6_000_000n, 12_000_000n],
    ]);
    expect(quote('m', pricing, { kind: 'text', promptTokens: 13, completionTokens: 8, webSearches: 0, webScrapes: 0 }).lines).toHaveLength(2);
    expect(quote('m', text, { kind: 'text', promptTokens: 13, completionTokens: 8, webSearches: 1, webScrapes: 2 }).total).toEqual({ usd: 290n, diem: 580n });
  });

  it('prices a tool call per request (the /augment/* tools)', () => {
    const q = quote('svc-augment-search', { per_request: { usd: 0.01, diem: 0.02 } }, { kind: 'request', requests: 1 });
    expect(q.lines.map((l) => [l.type, l.sku, l.unitType, l.quantity])).toEqual([['Request', 'svc-augment-search-request', 'requests', 1]]);
    expect(q.total).toEqual({ usd: 10_000_000n, diem: 20_000_000n });
    expect(() => quote('m', text, { kind: 'request', requests: 1 })).toThrow(/per_request/);
  });

  it('switches the whole request to extended rates above the context threshold', () => {
    const pricing = { ...text, extended: { context_token_threshold: 100, input: { usd: 1, diem: 1 }, output: { usd: 2, diem: 2 } } };
    expect(quote('m', pricing, { kind: 'text', promptTokens: 100, completionTokens: 1 }).total.usd).toBe(1_000n + 20n);
    expect(quote('m', pricing, { kind: 'text', promptTokens: 101, completionTokens: 1 }).total.usd).toBe(101_000n + 2_000n);
  });

  it('prices images by resolution and quality tier, defaulting to high', () => {
    const pricing = modelPricingSchema.parse({
      quality: { '1K': { low: { usd: 0.02, diem: 0.02 }, high: { usd: 0.27, diem: 0.27 } }, '2K': { high: { usd: 0.5, diem: 0.5 } } },
    });
    expect(quote('img', pricing, { kind: 'image', images: 2, resolution: '1K', quality: 'low' }).total.usd).toBe(40_000_000n);
    expect(quote('img', pricing, { kind: 'image', images: 1 }).total.usd).toBe(270_000_000n);
    expect(() => quote('img', pricing, { kind: 'image', images: 1, resolution: '2K', quality: 'low' })).toThrow(/quality low at resolution 2K/);
    expect(quote('img2', { generation: { usd: 0.01, diem: 0.1 } }, { kind: 'image', images: 3 }).total).toEqual({ usd: 30_000_000n, diem: 300_000_000n });
  });

  it('prices edits per edit plus extra input images', () => {
    const pricing = { inpaint: { usd: 0.04, diem: 0.04 }, inputImages: { included: 1, additional: { usd: 0.0045, diem: 0.0045 } } };
    const q = quote('edit', pricing, { kind: 'image-edit', edits: 1, inputImages: 3 });
    expect(q.lines.map((l) => [l.type, l.quantity, l.amount.usd])).toEqual([
      ['Edit', 1, 40_000_000n],
      ['Additional input image', 2, 9_000_000n],
    ]);
  });

  it('prices audio per character and per second, video per second and resolution, the RPC proxy per credit', () => {
    expect(quote('tts', { input: { usd: 3.5, diem: 3.5 } }, { kind: 'tts', characters: 1000 }).total.usd).toBe(3_500_000n);
    expect(quote('asr', { per_audio_second: { usd: 0.0001, diem: 0.0001 } }, { kind: 'asr', audioMs: 12_500 }).total.usd).toBe(1_250_000n);
    const video = { video: { per_second: { '720p': { usd: 0.05, diem: 0.05 } }, audio_multiplier: 1.5 } };
    expect(quote('vid', video, { kind: 'video', seconds: 5, resolution: '720p' }).total.usd).toBe(250_000_000n);
    expect(quote('vid', video, { kind: 'video', seconds: 5, resolution: '720p', audio: true }).total.usd).toBe(375_000_000n);
    expect(quote('rpc', { per_credit: { usd: 0.000001, diem: 0.000001 } }, { kind: 'rpc', credits: 14 }).total.usd).toBe(14_000n);
  });

  it('names the missing price instead of billing zero', () => {
    expect(() => quote('m', { input: text.input }, { kind: 'text', promptTokens: 1, completionTokens: 1 })).toThrow(PricingError);
    expect(() => quote('m', { input: text.input }, { kind: 'text', promptTokens: 1, completionTokens: 1 })).toThrow(/no output price/);
    expect(() => quote('vid', {}, { kind: 'video', seconds: 1, resolution: '4k' })).toThrow(/video.per_second.4k/);
  });

  it('rejects fractional or negative quantities', () => {
    expect(() => quote('m', text, { kind: 'text', promptTokens: 1.5, completionTokens: 0 })).toThrow(/non-negative integer/);
    expect(() => quote('m', text, { kind: 'text', promptTokens: 1, completionTokens: -1 })).toThrow(/non-negative integer/);
  });
});
