import cluster, { Worker } from 'node:cluster';
import { AggregatorRegistry, Registry } from 'prom-client';

/** IPC between a gateway worker answering GET /metrics and the primary, which aggregates every worker's registry. */
const ASK = 'svc:gateway-metrics';
const ANSWER = 'svc:gateway-metrics-answer';
const ANSWER_TIMEOUT_MS = 5_000;

interface Ask {
  type: typeof ASK;
  id: number;
}
interface Answer {
  type: typeof ANSWER;
  id: number;
  text?: string;
  contentType?: string;
  error?: string;
}

const isAsk = (m: unknown): m is Ask => typeof m === 'object' && m !== null && (m as Ask).type === ASK;
const isAnswer = (m: unknown): m is Answer => typeof m === 'object' && m !== null && (m as Answer).type === ANSWER;

/**
 * In the primary: answers workers' asks with the sum over every worker (prom-client's
 * AggregatorRegistry, which asks each worker for its registry over the same IPC channel).
 */
export function serveClusterMetrics(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker: Worker, message: unknown) => {
    if (!isAsk(message)) return;
    aggregator.clusterMetrics().then(
      (text) => worker.isConnected() && worker.send({ type: ANSWER, id: message.id, text, contentType: aggregator.contentType } satisfies Answer),
      (err: unknown) => worker.isConnected() && worker.send({ type: ANSWER, id: message.id, error: String(err) } satisfies Answer),
    );
  });
}

/**
 * In a worker: this registry is what the primary aggregates, and `scrape()` returns every
 * worker's metrics summed (counters and histograms; gauges summed too, Node's defaults as
 * prom-client aggregates them). Outside a cluster: this process's own registry.
 */
export class ClusterScrape {
  private readonly pending = new Map<number, (answer: Answer) => void>();
  private nextId = 1;

  constructor(private readonly registry: Registry) {
    if (!cluster.isWorker) return;
    AggregatorRegistry.setRegistries([registry]);
    new AggregatorRegistry(); // registers prom-client's answer to the primary's requests
    process.on('message', (message: unknown) => {
      if (isAnswer(message)) this.pending.get(message.id)?.(message);
    });
  }

  async scrape(): Promise<{ text: string; contentType: string }> {
    if (!cluster.isWorker || !process.send) return { text: await this.registry.metrics(), contentType: this.registry.contentType };
    const id = this.nextId++;
    const answer = await new Promise<Answer>((resolve) => {
      const timer = setTimeout(() => finish({ type: ANSWER, id, error: 'the primary did not answer' }), ANSWER_TIMEOUT_MS);
      const finish = (a: Answer) => {
        clearTimeout(timer);
        this.pending.delete(id);
        resolve(a);
      };
      this.pending.set(id, finish);
      process.send?.({ type: ASK, id } satisfies Ask);
    });
    if (answer.text === undefined) throw new Error(`cluster metrics: ${answer.error}`);
    return { text: answer.text, contentType: answer.contentType ?? this.registry.contentType };
  }
}
