import Redis from 'ioredis';
import { Logger } from '@svc/logging';

export const JOB_CONNECTIONS = Symbol('JOB_CONNECTIONS');

/**
 * The Redis connections of a service's BullMQ queues and workers. Commands wait for a reconnect
 * (`maxRetriesPerRequest: null`, as BullMQ requires); an outage is logged once per connection,
 * not per retry. Every connection opened here is closed by `close()` (JobsModule, at shutdown).
 */
export class JobConnections {
  private readonly opened = new Set<Redis>();

  /** `label` names the queue in log lines, e.g. "audio job queue". */
  constructor(
    private readonly url: string,
    private readonly logger: Logger,
    private readonly label: string,
  ) {}

  connect(role: string): Redis {
    const redis = new Redis(this.url, { maxRetriesPerRequest: null });
    let down = false;
    redis.on('error', (err: Error) => {
      if (!down) this.logger.error({ role, err: err.message }, `${this.label}: redis unavailable`);
      down = true;
    });
    redis.on('ready', () => (down = false));
    this.opened.add(redis);
    return redis;
  }

  async close(): Promise<void> {
    const all = [...this.opened];
    this.opened.clear();
    await Promise.all(all.map((redis) => redis.quit().catch(() => redis.disconnect())));
  }
}
