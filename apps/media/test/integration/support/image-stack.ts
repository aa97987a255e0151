import { freePort, ServiceProcess, startKeysBillingStack } from '@svc/testing';

export type Proc = ServiceProcess;

export interface ImageStack {
  /** `http://127.0.0.1:<port>/api/v1` */
  api: string;
  adminKey: string;
  processes: Proc[];
  stop(): Promise<void>;
}

const READY_MS = 120_000;

/**
 * Private NATS and Redis, fresh keys and billing databases, and the keys, billing, media and
 * gateway processes from their TypeScript sources (plus chat when `withChat`). The admin key is
 * the bootstrap account's, which billing credits with 100 USD.
 */
export async function startImageStack(
  options: { mediaEnv?: Record<string, string>; gatewayEnv?: Record<string, string>; withChat?: boolean } = {},
): Promise<ImageStack> {
  const stack = await startKeysBillingStack('img');
  try {
    const start = (name: string, entry: string, env: Record<string, string>, ready: string) => stack.start(name, entry, env).waitFor(ready, READY_MS);
    const port = await freePort();
    await Promise.all([
      stack.ready(READY_MS),
      start('media', 'apps/media/src/main.ts', options.mediaEnv ?? {}, 'media service ready'),
      ...(options.withChat ? [start('chat', 'apps/chat/src/main.ts', {}, 'chat service ready')] : []),
      start(
        'gateway',
        'apps/gateway/src/main.ts',
        { PORT: String(port), HOST: '127.0.0.1', REDIS_KEY_PREFIX: 'svc_test_img:', ...(options.gatewayEnv ?? {}) },
        'gateway listening',
      ),
    ]);
    return { api: `http://127.0.0.1:${port}/api/v1`, adminKey: stack.adminKey, processes: stack.processes, stop: () => stack.stop() };
  } catch (err) {
    await stack.stop();
    throw err;
  }
}
