import { catalogSchema, embeddingConstraintsOf } from '@svc/catalog';

const model = (constraints: Record<string, unknown>) => ({
  models: [
    { id: 'e', name: 'E', type: 'embedding', engine: { kind: 'embedded-word-vectors', file: 'x.svec' }, pricing: { input: { usd: 1, diem: 1 } }, constraints },
  ],
});

describe('embedding constraints in the catalog', () => {
  it('default to OpenAI limits and keep what the catalog sets', () => {
    const parsed = catalogSchema.parse(model({ dimensions: 160, minDimensions: 16 }));
    expect(embeddingConstraintsOf(parsed.models[0])).toEqual({ maxBatch: 2048, maxInputTokens: 8192, dimensions: 160, minDimensions: 16 });
  });

  it('are checked at load with the field named', () => {
    const issues = (c: Record<string, unknown>) => catalogSchema.safeParse(model(c)).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    expect(issues({ maxBatch: 5000 })?.[0]).toMatch(/^models\.0\.constraints\.maxBatch: /);
    expect(issues({ maxInputTokens: 0 })?.[0]).toMatch(/^models\.0\.constraints\.maxInputTokens: /);
    expect(issues({ minDimensions: 8 })).toEqual(['models.0.constraints.minDimensions: needs constraints.dimensions, and must not exceed it']);
    expect(issues({ dimensions: 8, minDimensions: 16 })).toEqual(['models.0.constraints.minDimensions: needs constraints.dimensions, and must not exceed it']);
  });
});
