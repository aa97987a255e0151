import { Pool } from 'undici';
import { DomainError, ErrorCode } from '@svc/errors';
import { hostsOf, UpstreamErrors } from '@svc/upstream';
import { EmbeddingEngine, EmbedRequest, EmbedResult } from './embedding-engine';

export interface OpenAIEmbeddingsEngineOptions {
  /** Base URL including the API prefix, e.g. `http://127.0.0.1:8000/v1`. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs: number;
  connections: number;
  /** Pass `dimensions` on to the server (it supports shortened vectors). */
  forwardDimensions: boolean;
}

interface UpstreamEmbeddings {
  data?: Array<{ index?: number; embedding?: number[] | string }>;
  usage?: { prompt_tokens?: number; total_tokens?: number } | null;
}

/**
 * `POST {baseUrl}/embeddings` of any OpenAI-compatible server (vLLM, llama.cpp server, Ollama,
 * TEI, OpenAI itself), pooled and kept alive. Asks for base64 (a third of the bytes of JSON
 * floats) and accepts float arrays from servers that ignore it.
 */
export class OpenAIEmbeddingsEngine implements EmbeddingEngine {
  readonly kind = 'upstream' as const;
  private readonly pool: Pool;
  private readonly path: string;
  private readonly headers: Record<string, string>;
  private readonly errors: UpstreamErrors;

  constructor(private readonly options: OpenAIEmbeddingsEngineOptions) {
    this.errors = new UpstreamErrors('embeddings', { hosts: hostsOf([options.baseUrl]), secrets: [options.apiKey] });
    const url = new URL(options.baseUrl);
    this.pool = new Pool(url.origin, {
      connections: options.connections,
      keepAliveTimeout: 30_000,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      connect: { timeout: Math.min(options.timeoutMs, 10_000) },
    });
    this.path = `${url.pathname.replace(/\/$/, '')}/embeddings`;
    this.headers = { 'content-type': 'application/json', accept: 'application/json' };
    if (options.apiKey) this.headers.authorization = `Bearer ${options.apiKey}`;
  }

  async ready(): Promise<void> {
    /* Connections open lazily; an unreachable upstream fails per request with 502. */
  }

  async embed(request: EmbedRequest): Promise<EmbedResult> {
    const body = JSON.stringify({
      model: this.options.model,
      input: request.inputs,
      encoding_format: 'base64',
      ...(this.options.forwardDimensions && request.dimensions !== undefined ? { dimensions: request.dimensions } : {}),
    });
    let res;
    try {
      res = await this.pool.request({ method: 'POST', path: this.path, headers: this.headers, body, signal: request.signal });
    } catch (err) {
      throw this.errors.transport(err);
    }
    if (res.statusCode >= 400) throw this.errors.http(res.statusCode, await res.body.text().catch(() => ''), res.headers['retry-after']);
    let parsed: UpstreamEmbeddings;
    try {
      parsed = (await res.body.json()) as UpstreamEmbeddings;
    } catch (err) {
      throw this.errors.transport(err, 'response');
    }
    return {
      embeddings: vectorsOf(parsed, request.inputs.length, request.dimensions),
      promptTokens: parsed.usage?.prompt_tokens ?? parsed.usage?.total_tokens ?? 0,
    };
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

/** The upstream's vectors in input order, checked: one per input, all the same (requested) length. */
export function vectorsOf(body: UpstreamEmbeddings, count: number, dimensions?: number): Float32Array[] {
  const data = body.data;
  if (!Array.isArray(data) || data.length !== count)
    throw new DomainError(ErrorCode.Upstream, `The model server returned ${Array.isArray(data) ? data.length : 'no'} embeddings for ${count} inputs.`);
  const out = new Array<Float32Array | undefined>(count);
  data.forEach((item, position) => {
    const index = item.index ?? position;
    if (!Number.isInteger(index) || index < 0 || index >= count || out[index])
      throw new DomainError(ErrorCode.Upstream, 'The model server returned embeddings with invalid indexes.');
    out[index] = toFloat32(item.embedding);
  });
  const vectors = out as Float32Array[];
  const length = vectors[0]?.length ?? 0;
  if (length === 0 || vectors.some((v) => v.length !== length))
    throw new DomainError(ErrorCode.Upstream, 'The model server returned embeddings of different lengths.');
  if (dimensions !== undefined && length < dimensions)
    throw new DomainError(ErrorCode.Upstream, `The model server returned ${length} dimensions, fewer than the ${dimensions} requested.`);
  // A server that ignored `dimensions`: shorten here, like the embedded models.
  return dimensions !== undefined && length > dimensions ? vectors.map((v) => shorten(v, dimensions)) : vectors;
}

function toFloat32(embedding: number[] | string | undefined): Float32Array {
  if (typeof embedding === 'string') {
    const bytes = Buffer.from(embedding, 'base64');
    if (bytes.length % 4 !== 0) throw new DomainError(ErrorCode.Upstream, 'The model server returned a malformed base64 embedding.');
    const out = new Float32Array(bytes.length / 4);
    for (let i = 0; i < out.length; i++) out[i] = bytes.readFloatLE(i * 4);
    return out;
  }
  if (Array.isArray(embedding) && embedding.every((x) => typeof x === 'number')) return Float32Array.from(embedding);
  throw new DomainError(ErrorCode.Upstream, 'The model server returned an embedding that is not a list of numbers.');
}

/** The leading `dimensions` components scaled back to unit length (Matryoshka-style shortening). */
export function shorten(vector: Float32Array, dimensions: number): Float32Array {
  const out = vector.slice(0, dimensions);
  let norm = 0;
  for (let i = 0; i < out.length; i++) norm += out[i] * out[i];
  norm = Math.sqrt(norm);
  if (norm > 0) for (let i = 0; i < out.length; i++) out[i] /= norm;
  return out;
}
