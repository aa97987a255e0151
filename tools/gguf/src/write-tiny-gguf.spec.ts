import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { GGUF_DEFAULT_ALIGNMENT, GgmlType, TokenType } from './gguf-format';
import { elementSize, readGguf } from './gguf-reader';
import { CHATML_TEMPLATE, TINY_GGUF_DEFAULTS, buildTinyGguf, writeTinyGguf } from './write-tiny-gguf';

describe('buildTinyGguf', () => {
  const { buffer, summary } = buildTinyGguf();
  const file = readGguf(buffer);
  const md = file.metadata;

  it('writes GGUF v3 llama metadata', () => {
    expect(file.version).toBe(3);
    expect(md['general.architecture']).toBe('llama');
    expect(md['general.name']).toBe('svc-tiny-random');
    expect(md['llama.block_count']).toBe(TINY_GGUF_DEFAULTS.blockCount);
    expect(md['llama.embedding_length']).toBe(TINY_GGUF_DEFAULTS.embeddingLength);
    expect(md['llama.attention.head_count_kv']).toBe(TINY_GGUF_DEFAULTS.headCountKv);
    expect(md['llama.rope.dimension_count']).toBe(TINY_GGUF_DEFAULTS.embeddingLength / TINY_GGUF_DEFAULTS.headCount);
    expect(md['llama.context_length']).toBeGreaterThanOrEqual(512);
    expect(md['tokenizer.chat_template']).toBe(CHATML_TEMPLATE);
    expect(summary.bytes).toBeLessThan(5 * 1024 * 1024);
  });

  it('has a llama SPM tokenizer with byte fallback and ChatML control tokens', () => {
    const tokens = md['tokenizer.ggml.tokens'] as string[];
    const types = md['tokenizer.ggml.token_type'] as number[];
    const scores = md['tokenizer.ggml.scores'] as number[];
    expect(md['tokenizer.ggml.model']).toBe('llama');
    expect(md['tokenizer.ggml.add_space_prefix']).toBe(false);
    expect(tokens).toHaveLength(TINY_GGUF_DEFAULTS.vocabSize);
    expect(types).toHaveLength(tokens.length);
    expect(scores).toHaveLength(tokens.length);
    expect(new Set(tokens).size).toBe(tokens.length);
    for (let b = 0; b < 256; b++) {
      const id = tokens.indexOf(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
      expect(types[id]).toBe(TokenType.Byte);
    }
    const imEnd = tokens.indexOf('<|im_end|>');
    expect(types[tokens.indexOf('<|im_start|>')]).toBe(TokenType.Control);
    expect(types[imEnd]).toBe(TokenType.Control);
    expect(md['tokenizer.ggml.eos_token_id']).toBe(imEnd);
    expect(tokens[md['tokenizer.ggml.bos_token_id'] as number]).toBe('<s>');
    expect(types[md['tokenizer.ggml.unknown_token_id'] as number]).toBe(TokenType.Unknown);
    expect(tokens).toEqual(expect.arrayContaining(['\u2581the', '\u2581and']));
    expect(summary.learnedMerges).toBeGreaterThan(300);
  });

  it('lays out llama tensors with aligned offsets that fill the file exactly', () => {
    const { blockCount, embeddingLength, vocabSize } = TINY_GGUF_DEFAULTS;
    expect(file.tensors).toHaveLength(3 + 9 * blockCount);
    const byName = new Map(file.tensors.map((t) => [t.name, t]));
    expect(byName.get('token_embd.weight')?.dims).toEqual([embeddingLength, vocabSize]);
    expect(byName.get('output.weight')?.dims).toEqual([embeddingLength, vocabSize]);
    expect(byName.get('blk.0.attn_k.weight')?.dims).toEqual([embeddingLength, (embeddingLength / 4) * 2]);
    expect(byName.get('blk.1.ffn_down.weight')?.dims).toEqual([TINY_GGUF_DEFAULTS.feedForwardLength, embeddingLength]);
    let end = 0;
    for (const t of file.tensors) {
      expect(t.offset % GGUF_DEFAULT_ALIGNMENT).toBe(0);
      expect(t.offset).toBeGreaterThanOrEqual(end);
      end = t.offset + t.dims.reduce((a, b) => a * b, 1) * elementSize(t.type);
    }
    expect(file.dataOffset % GGUF_DEFAULT_ALIGNMENT).toBe(0);
    expect(Math.ceil((file.dataOffset + end) / GGUF_DEFAULT_ALIGNMENT) * GGUF_DEFAULT_ALIGNMENT).toBe(buffer.length);
    const norm = byName.get('output_norm.weight')!;
    expect(buffer.readFloatLE(file.dataOffset + norm.offset)).toBe(1);
  });

  it('is deterministic for a seed, and the seed changes only the weights', () => {
    const again = buildTinyGguf({ seed: TINY_GGUF_DEFAULTS.seed });
    expect(again.buffer.equals(buffer)).toBe(true);
    const other = buildTinyGguf({ seed: 7 });
    expect(other.summary.sha256).not.toBe(summary.sha256);
    expect(other.buffer.length).toBe(buffer.length);
    expect(readGguf(other.buffer).metadata['tokenizer.ggml.tokens']).toEqual(md['tokenizer.ggml.tokens']);
  });

  it('writes F16 matrices with F32 norms by default, all F32 or a tied output when asked', () => {
    expect(md['general.file_type']).toBe(1);
    expect(file.tensors.find((t) => t.name === 'blk.0.attn_q.weight')?.type).toBe(GgmlType.F16);
    expect(file.tensors.find((t) => t.name === 'blk.0.attn_norm.weight')?.type).toBe(GgmlType.F32);
    const f32 = readGguf(buildTinyGguf({ tensorType: 'f32', tiedOutput: true }).buffer);
    expect(f32.metadata['general.file_type']).toBe(0);
    expect(f32.tensors.every((t) => t.type === GgmlType.F32)).toBe(true);
    expect(f32.tensors.find((t) => t.name === 'output.weight')).toBeUndefined();
  });

  it('rejects shapes llama.cpp cannot load', () => {
    expect(() => buildTinyGguf({ headCount: 3 })).toThrow(/divisible/);
    expect(() => buildTinyGguf({ headCountKv: 3 })).toThrow(/divisible/);
    expect(() => buildTinyGguf({ vocabSize: 100 })).toThrow(/too small/);
  });
});

describe('writeTinyGguf', () => {
  let dir: string;
  beforeAll(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tiny-gguf-'))));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes the file quickly, creating parent folders, and leaves no temp file', () => {
    const started = Date.now();
    const out = path.join(dir, 'models', 'svc-tiny-random.gguf');
    const summary = writeTinyGguf(out, { seed: 42 });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(summary.path).toBe(out);
    expect(fs.statSync(out).size).toBe(summary.bytes);
    expect(fs.readdirSync(path.dirname(out))).toEqual(['svc-tiny-random.gguf']);
    expect(readGguf(fs.readFileSync(out)).metadata['general.architecture']).toBe('llama');
  });
});

describe('readGguf', () => {
  it('rejects files that are not GGUF or are truncated', () => {
    expect(() => readGguf(Buffer.from('not a gguf file at all'))).toThrow(/not a GGUF/);
    const { buffer } = buildTinyGguf();
    expect(() => readGguf(buffer.subarray(0, 200))).toThrow(/truncated/);
  });
});
