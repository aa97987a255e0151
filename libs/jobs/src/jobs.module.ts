import { BullModule } from '@nestjs/bullmq';
import { DynamicModule, Inject, Module, OnApplicationShutdown } from '@nestjs/common';
import { Logger } from '@svc/logging';
import { JOB_CONNECTIONS, JobConnections } from './job-connections';

export interface JobsModuleOptions {
  redisUrl: string;
  logger: Logger;
  /** Names the queues in log lines, e.g. "audio job queue". */
  label: string;
}

/**
 * BullMQ queues as Nest providers (@nestjs/bullmq). `forRoot` once per service: one shared Redis
 * connection for every queue, and `JOB_CONNECTIONS` for workers' own connections. `registerQueue`
 * per queue, injected with `@InjectQueue(name)`. Connections are closed at shutdown, after the
 * queues; a worker should close in `beforeApplicationShutdown`, before both.
 */
@Module({})
export class JobsModule implements OnApplicationShutdown {
  constructor(@Inject(JOB_CONNECTIONS) private readonly connections: JobConnections) {}

  static forRoot(options: JobsModuleOptions): DynamicModule {
    const connections = new JobConnections(options.redisUrl, options.logger, options.label);
    return {
      module: JobsModule,
      global: true,
      imports: [BullModule.forRoot({ connection: connections.connect('queue') })],
      providers: [{ provide: JOB_CONNECTIONS, useValue: connections }],
      exports: [BullModule, JOB_CONNECTIONS],
    };
  }

  /** A queue under its deployment's key `prefix` (separate deployments on one Redis never share jobs). */
  static registerQueue(name: string, prefix: string): DynamicModule {
    return BullModule.registerQueue({ name, prefix });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.connections.close();
  }
}
