import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { cosine, WordVectorsEngine } from './word-vectors.engine';

function writeSvec(file: string, words: string[], rows: number[][], removeComponent: number[] = []): void {
  const dim = rows[0].length;
  const header = Buffer.from(
    JSON.stringify({
      format: 'svc-word-vectors-v1',
      dim,
      count: words.length,
      lowercase: true,
      tokenPattern: "[a-z]+(?:'[a-z]+)?",
      pooling: 'sif-mean',
      removeComponent,
      words,
      weights: words.map(() => 1),
    }),
  );
  const data = Buffer.alloc(rows.length * dim * 2);
  // float16 for the few exact values used here: 0, 1 and 0.5
  const f16 = (v: number) => (v === 0 ? 0 : v === 1 ? 0x3c00 : v === 0.5 ? 0x3800 : NaN);
  rows.flat().forEach((v, i) => data.writeUInt16LE(f16(v), 2 * i));
  const len = Buffer.alloc(4);
  len.writeUInt32LE(header.length);
  fs.writeFileSync(file, Buffer.concat([Buffer.from('SVEC'), len, header, data]));
}

describe('WordVectorsEngine', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svec-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('averages known word vectors into unit vectors, case-insensitively', async () => {
    const file = path.join(dir, 'a.svec');
    writeSvec(
      file,
      ['dog', 'cat', 'bank'],
      [
        [1, 0, 0],
        [1, 0.5, 0],
        [0, 0, 1],
      ],
    );
    const engine = new WordVectorsEngine({ modelPath: file });
    await engine.ready();
    expect(engine.dimensions).toBe(3);
    const { embeddings, tokens, emptyInputs } = engine.embed(['The DOG', 'a cat!', 'the bank', 'nothing known']);
    expect(tokens).toEqual([2, 2, 2, 2]);
    expect(emptyInputs).toEqual([3]);
    expect(cosine(embeddings[0], embeddings[0])).toBeCloseTo(1, 5);
    expect(cosine(embeddings[0], embeddings[1])).toBeGreaterThan(0.8);
    expect(cosine(embeddings[0], embeddings[2])).toBeCloseTo(0, 5);
    expect([...embeddings[3]]).toEqual([0, 0, 0]);
  });

  it('projects out the common component', async () => {
    const file = path.join(dir, 'b.svec');
    writeSvec(
      file,
      ['x', 'y'],
      [
        [1, 0.5, 0],
        [0, 1, 0],
      ],
      [0, 1, 0],
    );
    const engine = new WordVectorsEngine({ modelPath: file });
    await engine.ready();
    const [v] = engine.embed(['x']).embeddings;
    expect(v[1]).toBeCloseTo(0, 5);
    expect(v[0]).toBeCloseTo(1, 5);
  });

  it('rejects files that are not .svec', async () => {
    const file = path.join(dir, 'bad.svec');
    fs.writeFileSync(file, 'GGUF....');
    await expect(new WordVectorsEngine({ modelPath: file }).ready()).rejects.toThrow('not an .svec');
  });
});
