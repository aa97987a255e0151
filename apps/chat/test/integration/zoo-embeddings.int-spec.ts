import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadCatalog } from '@svc/catalog';
import { REPO_ROOT } from '@svc/config';
import { checkSha256Sums } from '@svc/testing';
import { cosine, WordVectorsEngine } from '../../src/engines/embeddings/word-vectors.engine';

// The committed zoo embedding model on the hand-written similarity set (models/zoo/embeddings).

const MODELS_DIR = path.join(REPO_ROOT, 'models');
const SET = path.join(MODELS_DIR, 'zoo', 'embeddings', 'similarity-set.json');

interface Item {
  anchor: string;
  related: string;
  unrelated: string;
}

describe('zoo embedding model (committed .svec)', () => {
  const model = loadCatalog().get('svc-zoo-embed');
  let engine: WordVectorsEngine;

  beforeAll(async () => {
    if (model?.engine.kind !== 'embedded-word-vectors') throw new Error('svc-zoo-embed must be an embedded-word-vectors model');
    engine = new WordVectorsEngine({ modelPath: path.join(MODELS_DIR, model.engine.file) });
    await engine.ready();
  });

  it('is an embedding model whose files match SHA256SUMS', () => {
    expect(model?.type).toBe('embedding');
    const { files, mismatched } = checkSha256Sums(path.join(MODELS_DIR, 'zoo', 'embeddings'));
    expect(files.length).toBeGreaterThan(0);
    expect(mismatched).toEqual([]);
  });

  it('scores related sentences above unrelated ones at least 90% of the time', () => {
    const items = (JSON.parse(fs.readFileSync(SET, 'utf8')) as { items: Item[] }).items;
    let wins = 0;
    for (const it of items) {
      const [a, r, u] = engine.embed([it.anchor, it.related, it.unrelated]).embeddings;
      if (cosine(a, r) > cosine(a, u)) wins++;
    }
    expect(items.length).toBeGreaterThanOrEqual(50);
    expect(wins / items.length).toBeGreaterThanOrEqual(0.9);
  });

  it('embeds a batch into unit-length vectors, identical inputs identically', () => {
    const inputs = Array.from({ length: 200 }, (_, i) => `The shepherd counted ${i % 2} sheep on the hill at night.`);
    const { embeddings } = engine.embed(inputs);
    expect(embeddings).toHaveLength(200);
    expect(embeddings[0].length).toBe(engine.dimensions);
    expect([...embeddings[2]]).toEqual([...embeddings[0]]);
    expect(cosine(embeddings[0], embeddings[0])).toBeCloseTo(1, 4);
  });
});
