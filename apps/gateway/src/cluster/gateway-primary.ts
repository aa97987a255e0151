import cluster, { Worker } from 'node:cluster';
import { Logger } from '@svc/logging';
import { serveClusterMetrics } from './cluster-metrics';

/** A worker that dies sooner than this after its start counts as a crash loop: the next start waits. */
const CRASH_LOOP_MS = 5_000;
const RESTART_DELAY_MS = 1_000;

/**
 * The primary of GATEWAY_WORKERS > 1 (docs/operations.md, "Gateway workers"): forks the workers,
 * which share the listening port (Node's cluster hands connections round-robin), serves their
 * summed metrics, starts a new worker when one dies, and on SIGINT/SIGTERM passes SIGTERM on and
 * exits once every worker has drained and exited. It loads no part of the gateway itself.
 */
export function runGatewayPrimary(workers: number, graceMs: number, logger: Logger): void {
  serveClusterMetrics();
  const startedAt = new Map<Worker, number>();
  let stopping = false;
  let listening = 0;
  const fork = () => startedAt.set(cluster.fork(), Date.now());

  cluster.on('listening', (worker, address) => {
    listening++;
    if (listening === workers) logger.info({ workers, port: address.port }, `gateway workers listening: ${workers}`);
    logger.debug({ worker: worker.process.pid }, 'gateway worker listening');
  });
  cluster.on('exit', (worker, code, signal) => {
    const lived = Date.now() - (startedAt.get(worker) ?? 0);
    startedAt.delete(worker);
    if (stopping) {
      if (startedAt.size === 0) {
        logger.info({ workers }, 'gateway workers stopped');
        process.exit(0);
      }
      return;
    }
    logger.error({ worker: worker.process.pid, code, signal, livedMs: lived }, 'gateway worker died; starting another');
    if (lived < CRASH_LOOP_MS) setTimeout(fork, RESTART_DELAY_MS);
    else fork();
  });

  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal, workers: startedAt.size }, 'gateway primary stopping its workers');
    for (const worker of startedAt.keys()) worker.process.kill('SIGTERM');
    if (startedAt.size === 0) process.exit(0);
    // Each worker bounds its own shutdown (twice the grace period and a second); this one a second more.
    setTimeout(() => process.exit(1), 2 * graceMs + 2_000).unref();
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  for (let i = 0; i < workers; i++) fork();
}
