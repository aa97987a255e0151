import 'reflect-metadata';
import { Controller } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { MessagingModule, runService } from '../../../src';

/** A service process for the lifecycle test: `wallet.test.slow` answers after the asked milliseconds. */
@Controller()
class SlowController {
  @MessagePattern('wallet.test.slow')
  async slow(data: { ms: number }): Promise<{ sleptMs: number }> {
    await new Promise((resolve) => setTimeout(resolve, data.ms));
    return { sleptMs: data.ms };
  }
}

const env = process.env as Record<string, string>;
runService(
  'wallet',
  () => ({ NATS_URL: env.NATS_URL, SHUTDOWN_GRACE_MS: Number(env.SHUTDOWN_GRACE_MS), HEALTH_PORT: Number(env.HEALTH_PORT) }),
  (config) => ({
    module: class SlowServiceModule {},
    imports: [MessagingModule.forRoot({ name: 'wallet', natsUrl: config.NATS_URL, rpcTimeoutMs: 5_000 })],
    controllers: [SlowController],
  }),
);
