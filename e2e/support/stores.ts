import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import Redis from 'ioredis';

/**
 * What the platform keeps, read back whole for the privacy test: a `pg_dump` of every database
 * its environment names, and every value of every key in every Redis database.
 */
const run = promisify(execFile);

/** The `*_DATABASE_URL`s of a platform's environment, by variable. */
export function databaseUrls(env: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter(([name]) => name.endsWith('_DATABASE_URL')));
}

/** Schema and data of one database, as `pg_dump` writes them (plain SQL). */
export async function pgDump(url: string): Promise<string> {
  const { stdout } = await run('pg_dump', ['--no-owner', '--no-privileges', `--dbname=${url}`], { maxBuffer: 512 * 1024 * 1024 });
  return stdout;
}

/** Every value of a key whatever its type (strings, hashes, lists, sets, sorted sets, streams), as raw bytes. */
async function valuesOf(redis: Redis, key: Buffer): Promise<Buffer[]> {
  const type = await redis.type(key);
  switch (type) {
    case 'string':
      return [(await redis.getBuffer(key)) ?? Buffer.alloc(0)];
    case 'hash':
      return redis.hgetallBuffer(key).then((h) => Object.entries(h).flatMap(([field, value]) => [Buffer.from(field), value]));
    case 'list':
      return redis.lrangeBuffer(key, 0, -1);
    case 'set':
      return redis.smembersBuffer(key);
    case 'zset':
      return redis.zrangeBuffer(key, 0, -1);
    case 'stream': {
      const entries = (await redis.xrangeBuffer(key, '-', '+')) as Array<[Buffer, Buffer[]]>;
      return entries.flatMap(([id, fields]) => [id, ...fields]);
    }
    default:
      return [Buffer.from(`<${type}>`)];
  }
}

export interface RedisContents {
  /** How many keys there were, across every database. */
  keys: number;
  /** Each key (`db<n>:<name>`) and what it holds: values joined, decoded as latin1 so every byte survives. */
  entries: Array<{ key: string; text: string }>;
}

/** SCANs every database of the Redis server at `url` and reads every key's values. */
export async function redisContents(url: string): Promise<RedisContents> {
  const admin = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await admin.connect();
  const databases = Number(((await admin.config('GET', 'databases')) as string[])[1] ?? 16);
  admin.disconnect();
  const entries: RedisContents['entries'] = [];
  for (let db = 0; db < databases; db++) {
    const redis = new Redis(url, { db, lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scanBuffer(cursor, 'COUNT', 1000);
      cursor = next.toString();
      for (const key of keys) {
        const values = await valuesOf(redis, key);
        entries.push({ key: `db${db}:${key.toString('latin1')}`, text: Buffer.concat([key, ...values]).toString('latin1') });
      }
    } while (cursor !== '0');
    redis.disconnect();
  }
  return { keys: entries.length, entries };
}
