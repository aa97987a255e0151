import { Dispatcher } from 'undici';
import { DomainError, ErrorCode } from '@svc/errors';
import { hostsOf, isRetryableTransportError, UpstreamErrors } from '@svc/upstream';
import { BackoffOptions, backoffDelay, DEFAULT_BACKOFF, sleep } from './backoff';
import { CircuitBreakerOptions } from './circuit-breaker';
import { pickEndpoint } from './endpoint-picker';
import { UpstreamApi, UpstreamEndpoint, UpstreamEndpointConfig } from './upstream-endpoint';

export interface UpstreamRouterOptions {
  endpoints: UpstreamEndpointConfig[];
  timeoutMs: number;
  connections: number;
  /** Attempts after the first, for connect errors and 502/503 before any byte. */
  retries: number;
  /** 0: no health checks. */
  healthCheckIntervalMs: number;
  circuitBreaker: CircuitBreakerOptions;
  backoff?: BackoffOptions;
  logger?: { warn(obj: object, msg: string): void };
}

/** A successful (status < 400) upstream response; call `release` once its body has been read. */
export interface RoutedResponse {
  endpoint: UpstreamEndpoint;
  response: Dispatcher.ResponseData;
  release(): void;
}

const HEALTH_TIMEOUT_MS = 2_000;

/**
 * Sends chat (and raw-text completions) requests to one of a model's upstream endpoints (docs/chat.md,
 * "Upstream routing"): least outstanding requests (or rendezvous hashing on prompt_cache_key), a circuit breaker and a
 * health check per endpoint, and retries with exponential backoff and jitter (preferring another
 * endpoint) for failures where no answer started: connect errors and 502/503. Nothing is retried
 * once a response body is being read.
 */
export class UpstreamRouter {
  readonly endpoints: UpstreamEndpoint[];
  /** Maps failures (libs/upstream) with every endpoint's host and key scrubbed from messages. */
  readonly errors: UpstreamErrors;
  private readonly healthTimer?: NodeJS.Timeout;

  constructor(private readonly options: UpstreamRouterOptions) {
    this.endpoints = options.endpoints.map((config, i) => new UpstreamEndpoint(`endpoint-${i + 1}`, config, options));
    this.errors = new UpstreamErrors('chat', { hosts: hostsOf(options.endpoints.map((e) => e.baseUrl)), secrets: options.endpoints.map((e) => e.apiKey) });
    if (options.healthCheckIntervalMs > 0 && this.endpoints.length > 1) {
      this.healthTimer = setInterval(() => void this.checkHealth(), options.healthCheckIntervalMs);
      this.healthTimer.unref();
    }
  }

  /** `onRetry` is called before each retried attempt; `api`: chat completions, or raw-text completions. */
  async send(
    body: (endpoint: UpstreamEndpoint) => string,
    signal: AbortSignal,
    cacheKey?: string,
    onRetry?: () => void,
    api: UpstreamApi = 'chat',
  ): Promise<RoutedResponse> {
    const tried = new Set<string>();
    for (let attempt = 0; ; attempt++) {
      const endpoint = pickEndpoint(this.endpoints, cacheKey, tried);
      if (!endpoint || !endpoint.breaker.tryAcquire()) {
        throw new DomainError(ErrorCode.ServiceUnavailable, 'Every model server for this model is failing; retry later.');
      }
      tried.add(endpoint.id);
      const retry = async (reason: string): Promise<boolean> => {
        if (attempt >= this.options.retries || signal.aborted) return false;
        this.options.logger?.warn({ endpoint: endpoint.id, attempt: attempt + 1, reason }, 'retrying upstream request');
        await sleep(backoffDelay(attempt, this.options.backoff ?? DEFAULT_BACKOFF), signal).catch(() => undefined);
        if (signal.aborted) return false;
        onRetry?.();
        return true;
      };
      endpoint.outstanding++;
      let released = false;
      const release = () => {
        if (!released) endpoint.outstanding--;
        released = true;
      };
      let response: Dispatcher.ResponseData;
      try {
        response = await endpoint.pool.request({ method: 'POST', path: endpoint.pathOf(api), headers: endpoint.headers, body: body(endpoint), signal });
      } catch (err) {
        release();
        if (signal.aborted) {
          endpoint.breaker.cancel();
          throw err;
        }
        endpoint.breaker.failure();
        if (isRetryableTransportError(err) && (await retry((err as { code?: string }).code ?? 'transport'))) continue;
        throw this.errors.transport(err);
      }
      if (response.statusCode < 400) {
        endpoint.breaker.success();
        return { endpoint, response, release };
      }
      const text = await response.body.text().catch(() => '');
      release();
      if (response.statusCode >= 500) endpoint.breaker.failure();
      else endpoint.breaker.success();
      if ((response.statusCode === 502 || response.statusCode === 503) && (await retry(`HTTP ${response.statusCode}`))) continue;
      throw this.errors.http(response.statusCode, text, response.headers['retry-after']);
    }
  }

  /** One health round: `GET <baseUrl>/models` on every endpoint; a 5xx or no answer marks it unhealthy. */
  async checkHealth(): Promise<void> {
    await Promise.all(
      this.endpoints.map(async (endpoint) => {
        try {
          const res = await endpoint.pool.request({
            method: 'GET',
            path: endpoint.modelsPath,
            headers: endpoint.headers,
            signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS),
          });
          await res.body.dump();
          endpoint.healthy = res.statusCode < 500;
        } catch {
          endpoint.healthy = false;
        }
      }),
    );
  }

  async close(): Promise<void> {
    if (this.healthTimer) clearInterval(this.healthTimer);
    await Promise.all(this.endpoints.map((e) => e.pool.close().catch(() => undefined)));
  }
}
