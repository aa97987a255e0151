import { connect, NatsConnection } from 'nats';
import { Client } from 'pg';
import { freePort, ServiceProcess, startKeysBillingStack } from '@svc/testing';

export type Proc = ServiceProcess;

export interface AudioStack {
  /** `http://127.0.0.1:<port>/api/v1` */
  api: string;
  adminKey: string;
  nc: NatsConnection;
  sql: Client;
  audio: Proc;
  gateway: Proc;
  /** Another audio service process on this stack (a second worker). */
  startAudio(name: string): Promise<Proc>;
  stop(): Promise<void>;
}

const READY_MS = 120_000;

/**
 * Private NATS and Redis, fresh keys and billing databases, and the keys, billing, audio and
 * gateway processes from their TypeScript sources. The admin key is the bootstrap account's,
 * which billing credits with 100 USD. Job locks are short so a killed worker's job is taken
 * over within seconds. `audioEnv` adds to the audio processes' environment, `gatewayEnv` to the gateway's.
 */
export async function startAudioStack(options: { audioEnv?: Record<string, string>; gatewayEnv?: Record<string, string> } = {}): Promise<AudioStack> {
  const stack = await startKeysBillingStack('aud');
  try {
    const audioEnv = { AUDIO_JOB_LOCK_MS: '3000', AUDIO_JOB_STALLED_INTERVAL_MS: '1000', AUDIO_JOB_BACKOFF_MS: '200', ...options.audioEnv };
    const port = await freePort();
    const audio = stack.start('audio', 'apps/audio/src/main.ts', audioEnv);
    const gateway = stack.start('gateway', 'apps/gateway/src/main.ts', {
      PORT: String(port),
      HOST: '127.0.0.1',
      REDIS_KEY_PREFIX: 'svc_test_audio:',
      ...options.gatewayEnv,
    });
    await Promise.all([stack.ready(READY_MS), audio.waitFor('audio service ready', READY_MS), gateway.waitFor('gateway listening', READY_MS)]);
    const nc = await connect({ servers: stack.natsUrl });
    stack.onStop(() => nc.close());
    const sql = new Client({ connectionString: stack.keysDatabaseUrl });
    await sql.connect();
    stack.onStop(() => sql.end());
    return {
      api: `http://127.0.0.1:${port}/api/v1`,
      adminKey: stack.adminKey,
      nc,
      sql,
      audio,
      gateway,
      async startAudio(name) {
        const p = stack.start(name, 'apps/audio/src/main.ts', audioEnv);
        await p.waitFor('audio service ready', READY_MS);
        return p;
      },
      stop: () => stack.stop(),
    };
  } catch (err) {
    await stack.stop();
    throw err;
  }
}
