import { Pool } from 'undici';
import { CircuitBreaker, CircuitBreakerOptions } from './circuit-breaker';
import { Pickable } from './endpoint-picker';

export interface UpstreamEndpointConfig {
  /** Base URL including the API prefix, e.g. `http://10.0.0.5:8000/v1`. */
  baseUrl: string;
  /** The model name this server knows. */
  model: string;
  apiKey?: string;
}

/** Which of the server's generation APIs a request goes to: chat completions, or raw-text completions. */
export type UpstreamApi = 'chat' | 'completions';

export interface EndpointPoolOptions {
  timeoutMs: number;
  connections: number;
  circuitBreaker: CircuitBreakerOptions;
}

/** One upstream server: a keep-alive connection pool, its circuit breaker and load counters. */
export class UpstreamEndpoint implements Pickable {
  readonly pool: Pool;
  readonly chatPath: string;
  readonly completionsPath: string;
  readonly modelsPath: string;
  readonly headers: Record<string, string>;
  readonly breaker: CircuitBreaker;
  outstanding = 0;
  healthy = true;

  constructor(
    readonly id: string,
    readonly config: UpstreamEndpointConfig,
    options: EndpointPoolOptions,
  ) {
    const url = new URL(config.baseUrl);
    this.pool = new Pool(url.origin, {
      connections: options.connections,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      connect: { timeout: Math.min(options.timeoutMs, 10_000) },
    });
    const prefix = url.pathname.replace(/\/$/, '');
    this.chatPath = `${prefix}/chat/completions`;
    this.completionsPath = `${prefix}/completions`;
    this.modelsPath = `${prefix}/models`;
    this.headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    if (config.apiKey) this.headers.authorization = `Bearer ${config.apiKey}`;
    this.breaker = new CircuitBreaker(options.circuitBreaker);
  }

  pathOf(api: UpstreamApi): string {
    return api === 'completions' ? this.completionsPath : this.chatPath;
  }

  get available(): boolean {
    return this.breaker.available;
  }
}
