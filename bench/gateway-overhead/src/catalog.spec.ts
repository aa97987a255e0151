import path from 'node:path';
import { loadCatalog } from '@svc/catalog';

describe('bench catalog', () => {
  it('is a valid catalog whose one model proxies to BENCH_UPSTREAM_URL', () => {
    const file = path.join(__dirname, '..', 'catalog.yaml');
    const catalog = loadCatalog(file, { BENCH_UPSTREAM_URL: 'http://127.0.0.1:18080/v1' });

    expect(catalog.models.map((m) => m.id)).toEqual(['bench-upstream']);
    expect(catalog.models[0].engine).toMatchObject({ kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:18080/v1', model: 'fake-model' });
  });
});
