import path from 'node:path';
import { startPrivateRedis } from '@svc/testing';
import { Endpoints } from './chat-request';
import { CpuSources } from './cpu-sampler';
import { freePort, processTree, readAllStats, startFakeUpstream, startPlatform, startPrivateNats } from './gateway-overhead';
import { BENCH_DATABASES, databaseUrls, platformEnv } from './platform-env';
import { startPortkey } from './portkey';

export interface RunningSystems {
  endpoints: Endpoints;
  /** Every process a measurement counts. */
  cpu: CpuSources;
  /** Environment for the operator CLIs: the bench's databases and NATS. */
  cliEnv: NodeJS.ProcessEnv;
}

export interface SystemsOptions {
  root: string;
  logDir: string;
  tokens: number;
  startTimeoutSeconds: number;
  /** Stops are pushed here as each process starts, for runBench to run in reverse. */
  cleanups: (() => Promise<void>)[];
  say: (msg: string) => void;
}

/**
 * One fake upstream, and both systems in front of it, all up for the whole run: the platform as a
 * user starts it (with a private nats-server and redis-server) and Portkey's gateway.
 */
export async function startSystems(o: SystemsOptions): Promise<RunningSystems> {
  const upstream = await startFakeUpstream(o.root, 0, o.tokens);
  o.cleanups.push(upstream.stop);
  const upstreamBaseUrl = `${upstream.url}/v1`;
  const nats = await startPrivateNats();
  o.cleanups.push(nats.stop);
  const redis = await startPrivateRedis();
  o.cleanups.push(redis.stop);
  const pgUrl = process.env.BENCH_PG_URL ?? 'postgresql://postgres@127.0.0.1:5432';

  const port = await freePort();
  const env = platformEnv(
    { root: o.root, port, natsUrl: nats.url, redisUrl: redis.url, upstreamBaseUrl, pgUrl, startTimeoutSeconds: o.startTimeoutSeconds },
    process.env,
  );
  o.say(`starting the platform on port ${port} (log: ${path.relative(o.root, o.logDir)}/platform.log)`);
  const platform = await startPlatform(o.root, env, port, path.join(o.logDir, 'platform.log'), o.startTimeoutSeconds * 1000, (stop) => o.cleanups.push(stop));
  const portkey = await startPortkey(o.root, path.join(o.logDir, 'portkey.log'));
  o.cleanups.push(portkey.stop);
  o.say(`platform at ${platform.baseUrl}, Portkey at ${portkey.url}, fake upstream at ${upstreamBaseUrl}`);

  return {
    endpoints: { upstream: upstreamBaseUrl, platform: platform.baseUrl, portkey: portkey.url },
    cpu: {
      platformRoot: platform.pid,
      nats: nats.pid,
      redis: childPid('redis-server'),
      portkey: portkey.pid,
      upstream: upstream.pid,
      postgresDatabases: Object.values(BENCH_DATABASES),
    },
    cliEnv: { ...process.env, ...databaseUrls(pgUrl), NATS_URL: nats.url, LOG_LEVEL: 'warn' },
  };
}

/** A process below this one, by command name (the private redis-server: its helper does not give its pid). */
function childPid(comm: string): number | undefined {
  return processTree(readAllStats(), process.pid).find((s) => s.comm === comm && s.pid !== process.pid)?.pid;
}
