import { LazyBlobStore } from '@svc/blob-store';
import { Catalog, catalogSchema } from '@svc/catalog';
import { CreateEmbeddingsRequest, SettledUsage } from '@svc/contracts';
import { DomainError } from '@svc/errors';
import { createLogger } from '@svc/logging';
import { RpcClient } from '@svc/messaging';
import { BillingSettler } from '@svc/billing-client';
import { EmbeddingEngine } from '../engines/embeddings/embedding-engine';
import { EmbeddingEngineRegistry } from '../engines/embeddings/embedding-engine-registry';
import { vectorsOf } from '../engines/embeddings/openai-embeddings.engine';
import { EmbeddingsService } from './embeddings.service';

const catalog = new Catalog(
  catalogSchema.parse({
    models: [
      {
        id: 'emb',
        name: 'Embeddings',
        type: 'embedding',
        engine: { kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:1/v1', model: 'x' },
        pricing: { input: { usd: 1, diem: 1 } },
        constraints: { dimensions: 4, minDimensions: 2, maxBatch: 3, maxInputTokens: 5 },
      },
    ],
  }),
);

/** Counts words; vectors are [n, 1, 0, 0] normalised. */
const fakeEngine = (): EmbeddingEngine => ({
  kind: 'embedded',
  ready: async () => undefined,
  countTokens: (inputs) => inputs.map((s) => s.split(' ').length),
  embed: async ({ inputs, dimensions }) => ({
    embeddings: inputs.map((s) => Float32Array.from([s.split(' ').length, 1, 0, 0].slice(0, dimensions ?? 4))),
    promptTokens: -1,
  }),
  close: async () => undefined,
});

function setup(engine = fakeEngine()) {
  const settlements: Array<{ outcome: string; usage: SettledUsage | null }> = [];
  const billing = new BillingSettler({} as RpcClient, createLogger('test', 'silent'));
  billing.settle = (_b, _id, outcome, usage: SettledUsage | null) => void settlements.push({ outcome, usage });
  const registry = { get: () => engine } as unknown as EmbeddingEngineRegistry;
  const service = new EmbeddingsService(catalog, registry, billing, new LazyBlobStore('redis://127.0.0.1:1'), createLogger('test', 'silent'));
  return { service, settlements };
}

/** The inputs travel as their JSON, inline here (the gateway packs them so). */
const packed = (value: unknown) => ({ base64: Buffer.from(JSON.stringify(value)).toString('base64') });
const request = ({
  input = ['one two', 'three'],
  ...over
}: Partial<Omit<CreateEmbeddingsRequest, 'input'>> & { input?: unknown }): CreateEmbeddingsRequest => ({
  caller: { requestId: 'r1', accountId: 'a', apiKeyId: 'k' },
  model: 'emb',
  input: packed(input),
  billing: { reservationId: 'res-1' },
  ...over,
});

describe('EmbeddingsService', () => {
  it('returns packed float32 vectors and settles with the counted tokens', async () => {
    const { service, settlements } = setup();
    const reply = await service.create(request({}));
    expect(reply).toMatchObject({ model: 'emb', count: 2, dimensions: 4, promptTokens: 3 });
    const floats = new Float32Array(new Uint8Array(Buffer.from('base64' in reply.vectors ? reply.vectors.base64 : '', 'base64')).buffer);
    expect(Array.from(floats)).toEqual([2, 1, 0, 0, 1, 1, 0, 0]);
    expect(settlements).toEqual([{ outcome: 'completed', usage: { kind: 'embedding', inputTokens: 3 } }]);
  });

  it('refuses an input over the per-input token limit with 400 naming it, and releases the reservation', async () => {
    const { service, settlements } = setup();
    const err = await service.create(request({ input: ['fine', 'a b c d e f'] })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).status).toBe(400);
    expect((err as DomainError).message).toBe('Input 1 has 6 tokens; model emb accepts at most 5 per input.');
    expect(settlements).toEqual([{ outcome: 'failed', usage: null }]);
  });

  it('checks batch size and dimensions again, and shortens vectors when allowed', async () => {
    const { service } = setup();
    await expect(service.create(request({ input: ['a', 'b', 'c', 'd'] }))).rejects.toThrow('input must have 1 to 3 items for model emb.');
    await expect(service.create(request({ dimensions: 1 }))).rejects.toThrow('dimensions 1 is not available for model emb.');
    await expect(service.create(request({ dimensions: 5 }))).rejects.toThrow('dimensions 5 is not available');
    expect((await service.create(request({ dimensions: 2 }))).dimensions).toBe(2);
  });

  it('checks the unpacked inputs as the message schema did: an array of non-empty strings, else a 400 naming input', async () => {
    const { service } = setup();
    for (const input of [['a', ''], 'text', [1]]) {
      const err = (await service.create(request({ input })).catch((e: unknown) => e)) as DomainError;
      expect(err.status).toBe(400);
      expect(err.details).toMatchObject({ input: {} });
    }
  });

  it('turns an engine crash into a generic 500 and releases the reservation', async () => {
    const engine = { ...fakeEngine(), embed: async () => Promise.reject(new Error('secret internal detail')) };
    const { service, settlements } = setup(engine);
    const err = (await service.create(request({})).catch((e: unknown) => e)) as DomainError;
    expect(err.status).toBe(500);
    expect(err.message).toBe('Embedding failed.');
    expect(settlements[0].outcome).toBe('failed');
  });
});

describe('upstream embeddings', () => {
  it('orders by index, decodes base64 and shortens vectors of servers that ignore dimensions', () => {
    const b64 = Buffer.alloc(8);
    b64.writeFloatLE(3, 0);
    b64.writeFloatLE(4, 4);
    const out = vectorsOf(
      {
        data: [
          { index: 1, embedding: [1, 0] },
          { index: 0, embedding: b64.toString('base64') },
        ],
      },
      2,
    );
    expect(out.map((v) => Array.from(v))).toEqual([
      [3, 4],
      [1, 0],
    ]);
    expect(Array.from(vectorsOf({ data: [{ embedding: [3, 4, 12] }] }, 1, 2)[0])).toEqual([0.6000000238418579, 0.800000011920929]);
  });

  it('fails with 502 on a wrong count, duplicate indexes, ragged or too short vectors', () => {
    const bad = [
      () => vectorsOf({ data: [] }, 1),
      () =>
        vectorsOf(
          {
            data: [
              { index: 0, embedding: [1] },
              { index: 0, embedding: [1] },
            ],
          },
          2,
        ),
      () => vectorsOf({ data: [{ embedding: [1, 2] }, { embedding: [1] }] }, 2),
      () => vectorsOf({ data: [{ embedding: [1, 2] }] }, 1, 3),
      () => vectorsOf({ data: [{ embedding: ['x'] as unknown as number[] }] }, 1),
    ];
    for (const fn of bad) {
      expect(fn).toThrow(DomainError);
      try {
        fn();
      } catch (err) {
        expect((err as DomainError).status).toBe(502);
      }
    }
  });
});
