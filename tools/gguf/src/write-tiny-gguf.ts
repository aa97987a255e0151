import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FileType, GgmlType, TokenType } from './gguf-format';
import { GgufWriter } from './gguf-writer';
import { Prng } from './prng';
import { buildSpmVocab } from './spm-vocab';
import { TOKENIZER_CORPUS } from './tokenizer-corpus';

export interface TinyGgufOptions {
  seed?: number;
  name?: string;
  vocabSize?: number;
  embeddingLength?: number;
  blockCount?: number;
  headCount?: number;
  headCountKv?: number;
  feedForwardLength?: number;
  contextLength?: number;
  tensorType?: 'f32' | 'f16';
  /**
   * true reuses `token_embd.weight` as the output projection (llama.cpp supports both). The
   * default separate `output.weight` steers sampling away from byte, control and unused tokens.
   */
  tiedOutput?: boolean;
}

export type TinyGgufConfig = Required<TinyGgufOptions>;

export interface TinyGgufSummary {
  path?: string;
  bytes: number;
  sha256: string;
  parameters: number;
  learnedMerges: number;
  config: TinyGgufConfig;
}

export const TINY_GGUF_DEFAULTS: TinyGgufConfig = {
  seed: 1234,
  name: 'svc-tiny-random',
  vocabSize: 1024,
  embeddingLength: 64,
  blockCount: 2,
  headCount: 4,
  headCountKv: 2,
  feedForwardLength: 192,
  contextLength: 2048,
  tensorType: 'f16',
  tiedOutput: false,
};

/** ChatML, as used by many open chat models; node-llama-cpp recognises it and llama.cpp renders it. */
export const CHATML_TEMPLATE =
  "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}{% endfor %}" +
  "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

const WEIGHT_STD = 0.02;
const OUTPUT_STD = 0.5;
/** Logit offset (roughly) for tokens that random sampling should avoid. */
const AVOID_LOGIT = -8;

/** Builds the whole file in memory. Same options (including seed) give the same bytes. */
export function buildTinyGguf(opts: TinyGgufOptions = {}): { buffer: Buffer; summary: TinyGgufSummary } {
  const c: TinyGgufConfig = { ...TINY_GGUF_DEFAULTS, ...opts };
  validate(c);
  const vocab = buildSpmVocab(TOKENIZER_CORPUS, c.vocabSize);
  const headDim = c.embeddingLength / c.headCount;
  const kvDim = headDim * c.headCountKv;
  const matrixType = c.tensorType === 'f16' ? GgmlType.F16 : GgmlType.F32;

  const w = new GgufWriter();
  w.string('general.architecture', 'llama')
    .string('general.name', c.name)
    .string('general.description', 'Random weights with a real tokenizer, for tests and smoke runs; its output is meaningless text.')
    .u32('general.file_type', c.tensorType === 'f16' ? FileType.MostlyF16 : FileType.AllF32)
    .u32('llama.vocab_size', c.vocabSize)
    .u32('llama.context_length', c.contextLength)
    .u32('llama.embedding_length', c.embeddingLength)
    .u32('llama.block_count', c.blockCount)
    .u32('llama.feed_forward_length', c.feedForwardLength)
    .u32('llama.attention.head_count', c.headCount)
    .u32('llama.attention.head_count_kv', c.headCountKv)
    .u32('llama.rope.dimension_count', headDim)
    .f32('llama.rope.freq_base', 10000)
    .f32('llama.attention.layer_norm_rms_epsilon', 1e-5)
    .string('tokenizer.ggml.model', 'llama')
    .stringArray(
      'tokenizer.ggml.tokens',
      vocab.entries.map((e) => e.piece),
    )
    .f32Array(
      'tokenizer.ggml.scores',
      vocab.entries.map((e) => e.score),
    )
    .i32Array(
      'tokenizer.ggml.token_type',
      vocab.entries.map((e) => e.type),
    )
    .u32('tokenizer.ggml.bos_token_id', vocab.ids.bos)
    // <|im_end|> ends an assistant turn, so it is the token generation must stop at.
    .u32('tokenizer.ggml.eos_token_id', vocab.ids.imEnd)
    .u32('tokenizer.ggml.unknown_token_id', vocab.ids.unk)
    .u32('tokenizer.ggml.padding_token_id', vocab.ids.unk)
    .bool('tokenizer.ggml.add_bos_token', true)
    .bool('tokenizer.ggml.add_eos_token', false)
    // The pieces were learned without a dummy prefix; llama.cpp would otherwise prepend a space.
    .bool('tokenizer.ggml.add_space_prefix', false)
    .string('tokenizer.chat_template', CHATML_TEMPLATE);

  const rng = new Prng(c.seed);
  let parameters = 0;
  const matrix = (name: string, cols: number, rows: number) => {
    w.tensor(name, [cols, rows], gaussian(rng, cols * rows, WEIGHT_STD), matrixType);
    parameters += cols * rows;
  };
  // Norm weights stay F32: llama.cpp expects 1-D tensors in F32.
  const norm = (name: string) => {
    w.tensor(name, [c.embeddingLength], new Float32Array(c.embeddingLength).fill(1), GgmlType.F32);
    parameters += c.embeddingLength;
  };

  // Column 0 of every embedding is a constant 1 that dominates the residual stream, so after the
  // final RMSNorm it is roughly sqrt(embeddingLength) for any input: output.weight's column 0
  // then acts as a per-token logit bias (a plain llama has no output bias tensor).
  const embd = gaussian(rng, c.vocabSize * c.embeddingLength, WEIGHT_STD);
  for (let t = 0; t < c.vocabSize; t++) embd[t * c.embeddingLength] = 1;
  w.tensor('token_embd.weight', [c.embeddingLength, c.vocabSize], embd, matrixType);
  parameters += embd.length;
  for (let i = 0; i < c.blockCount; i++) {
    norm(`blk.${i}.attn_norm.weight`);
    matrix(`blk.${i}.attn_q.weight`, c.embeddingLength, c.embeddingLength);
    matrix(`blk.${i}.attn_k.weight`, c.embeddingLength, kvDim);
    matrix(`blk.${i}.attn_v.weight`, c.embeddingLength, kvDim);
    matrix(`blk.${i}.attn_output.weight`, c.embeddingLength, c.embeddingLength);
    norm(`blk.${i}.ffn_norm.weight`);
    matrix(`blk.${i}.ffn_gate.weight`, c.embeddingLength, c.feedForwardLength);
    matrix(`blk.${i}.ffn_up.weight`, c.embeddingLength, c.feedForwardLength);
    matrix(`blk.${i}.ffn_down.weight`, c.feedForwardLength, c.embeddingLength);
  }
  norm('output_norm.weight');
  if (!c.tiedOutput) {
    const out = gaussian(rng, c.vocabSize * c.embeddingLength, OUTPUT_STD);
    const biasScale = 1 / Math.sqrt(c.embeddingLength);
    vocab.entries.forEach((e, t) => {
      const sampleable = e.type === TokenType.Normal || t === vocab.ids.imEnd;
      out[t * c.embeddingLength] = sampleable ? 0 : AVOID_LOGIT * biasScale;
    });
    w.tensor('output.weight', [c.embeddingLength, c.vocabSize], out, matrixType);
    parameters += out.length;
  }

  const buffer = w.toBuffer();
  const sha256 = createHash('sha256').update(buffer).digest('hex');
  return { buffer, summary: { bytes: buffer.length, sha256, parameters, learnedMerges: vocab.learnedMerges, config: c } };
}

/** Writes the model atomically (temp file + rename), so a reader never sees half a file. */
export function writeTinyGguf(outPath: string, opts: TinyGgufOptions = {}): TinyGgufSummary {
  const { buffer, summary } = buildTinyGguf(opts);
  const target = path.resolve(outPath);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const tmp = `${target}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, buffer);
  fs.renameSync(tmp, target);
  return { ...summary, path: target };
}

function gaussian(rng: Prng, n: number, std: number): Float32Array {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = rng.normal() * std;
  return out;
}

function validate(c: TinyGgufConfig): void {
  const positive = ['vocabSize', 'embeddingLength', 'blockCount', 'headCount', 'headCountKv', 'feedForwardLength', 'contextLength'] as const;
  for (const key of positive) {
    if (!Number.isInteger(c[key]) || c[key] <= 0) throw new Error(`${key} must be a positive integer`);
  }
  if (!Number.isInteger(c.seed) || c.seed < 0 || c.seed > 0xffffffff) throw new Error('seed must be an integer in [0, 2^32)');
  if (c.embeddingLength % c.headCount !== 0) throw new Error('embeddingLength must be divisible by headCount');
  if (c.headCount % c.headCountKv !== 0) throw new Error('headCount must be divisible by headCountKv');
  if ((c.embeddingLength / c.headCount) % 2 !== 0) throw new Error('head size must be even for RoPE');
}
