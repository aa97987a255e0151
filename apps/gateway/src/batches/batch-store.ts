import { Inject, Injectable } from '@nestjs/common';
import Redis from 'ioredis';
import { BlobStore } from '@svc/blob-store';
import { GATEWAY_CONFIG, GatewayConfig } from '../config';
import { REDIS } from '../redis/redis.module';
import { startAfter } from './batch-object';
import { ListFilesQuery } from './batch-request.dto';
import { BatchOutputLine, BatchStatus, StoredBatch, StoredFile } from './batch.types';

/** What a batch's end records with its status: its files, or why it failed (JSON). */
export type TerminalFields = Partial<Pick<StoredBatch, 'outputFileId' | 'errorFileId'>> & { error?: string };

export type FileListQuery = Pick<ListFilesQuery, 'order' | 'after' | 'purpose'>;

/** Files read at once while a list is paged. */
const LIST_CHUNK = 500;

/** A batch's record outlives its files so its status can still be read; only metadata is in it. */
const BATCH_RECORD_TTL_MS = 30 * 24 * 60 * 60_000;

/**
 * Moves `status` from one of the ARGV[4] statuses after it to ARGV[1], stamping the field ARGV[2]
 * with ARGV[3] and setting the field/value pairs after the statuses in the same step; 1 when it moved.
 */
const MOVE_STATUS = `
local current = redis.call('HGET', KEYS[1], 'status')
if not current then return 0 end
local n = tonumber(ARGV[4])
for i = 5, 4 + n do
  if ARGV[i] == current then
    redis.call('HSET', KEYS[1], 'status', ARGV[1], ARGV[2], ARGV[3], unpack(ARGV, 5 + n))
    return 1
  end
end
return 0`;

/**
 * Records a finished line (KEYS[1] results hash, field ARGV[1], value ARGV[2], TTL ARGV[3] ms) and
 * counts it in the batch (KEYS[2], counter ARGV[4]) in one step: a worker killed between the two
 * would leave a line recorded, so skipped on resume, and never counted. 1 when it was new.
 */
const RECORD_LINE = `
local added = redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
if added == 1 then redis.call('HINCRBY', KEYS[2], ARGV[4], 1) end
return added`;

const NUMBER_FIELDS = [
  'total',
  'completed',
  'failed',
  'inProgressAt',
  'finalizingAt',
  'completedAt',
  'failedAt',
  'cancellingAt',
  'cancelledAt',
  'expiredAt',
] as const;
const STATUS_TIME: Record<BatchStatus, keyof StoredBatch | null> = {
  validating: null,
  in_progress: 'inProgressAt',
  finalizing: 'finalizingAt',
  completed: 'completedAt',
  failed: 'failedAt',
  cancelling: 'cancellingAt',
  cancelled: 'cancelledAt',
  expired: 'expiredAt',
};

/**
 * Files and batches in Redis: file bytes in the blob store (with the file's TTL), metadata next to
 * them (ids, sizes, counts, status, times; never a prompt or an answer), per-account indexes for
 * listing, and a running batch's finished lines until its output files are written.
 */
@Injectable()
export class BatchStore {
  readonly blobs: BlobStore;
  private readonly p: string;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(GATEWAY_CONFIG) config: GatewayConfig,
  ) {
    this.blobs = new BlobStore(redis);
    this.p = `${config.REDIS_KEY_PREFIX}batch:`;
  }

  async putFile(file: Omit<StoredFile, 'blobId'>, content: Buffer): Promise<StoredFile> {
    const ttl = file.expiresAt - Date.now();
    const { blobId } = await this.blobs.put(content, ttl);
    const stored = { ...file, blobId };
    await this.redis
      .multi()
      .set(this.fileKey(file.id), JSON.stringify(stored), 'PX', ttl)
      .zadd(this.filesKey(file.accountId), file.createdAt, file.id)
      // The index lives as long as its longest-lived file (NX: a new index; GT: a later file).
      .pexpire(this.filesKey(file.accountId), ttl, 'NX')
      .pexpire(this.filesKey(file.accountId), ttl, 'GT')
      .exec();
    return stored;
  }

  /** The file when it exists and belongs to `accountId` (another account's file does not exist for it). */
  async file(accountId: string, id: string): Promise<StoredFile | null> {
    const raw = await this.redis.get(this.fileKey(id));
    const file = raw ? (JSON.parse(raw) as StoredFile) : null;
    return file && file.accountId === accountId ? file : null;
  }

  content(file: StoredFile): Promise<Buffer | null> {
    return this.blobs.get(file.blobId);
  }

  /** Keeps a file (bytes and metadata) until `expiresAt`: a batch's input lives as long as the batch may run. */
  async extendFile(file: StoredFile, expiresAt: number): Promise<void> {
    const ttl = Math.max(1, expiresAt - Date.now());
    const updated = { ...file, expiresAt };
    await this.blobs.keep(file.blobId, ttl);
    await this.redis.multi().set(this.fileKey(file.id), JSON.stringify(updated), 'PX', ttl).pexpire(this.filesKey(file.accountId), ttl, 'GT').exec();
  }

  async deleteFile(file: StoredFile): Promise<void> {
    await this.blobs.delete(file.blobId);
    await this.redis.multi().del(this.fileKey(file.id)).zrem(this.filesKey(file.accountId), file.id).exec();
  }

  /**
   * Up to `count` of the account's files in creation order (`order`), those after the file `after`
   * (none when it is not in the list: a cursor with no place in it), of `purpose` when given. Ids
   * whose file expired are dropped from the index.
   */
  async files(accountId: string, query: FileListQuery, count: number): Promise<StoredFile[]> {
    const key = this.filesKey(accountId);
    const ids = query.order === 'asc' ? await this.redis.zrange(key, 0, -1) : await this.redis.zrevrange(key, 0, -1);
    const start = startAfter(ids, query.after);
    const page: StoredFile[] = [];
    const gone: string[] = [];
    for (let i = start; i < ids.length && page.length < count; i += LIST_CHUNK) {
      const chunk = ids.slice(i, i + LIST_CHUNK);
      const found = await Promise.all(chunk.map((id) => this.file(accountId, id)));
      chunk.forEach((id, j) => {
        const file = found[j];
        if (!file) gone.push(id);
        else if (query.purpose === undefined || file.purpose === query.purpose) page.push(file);
      });
    }
    if (gone.length > 0) await this.redis.zrem(key, ...gone);
    return page.slice(0, count);
  }

  async createBatch(batch: StoredBatch): Promise<void> {
    const { status, total, completed, failed, ...meta } = batch;
    await this.redis
      .multi()
      .hset(this.batchKey(batch.id), { meta: JSON.stringify(meta), status, total, completed, failed })
      .pexpire(this.batchKey(batch.id), BATCH_RECORD_TTL_MS)
      .zadd(this.batchesKey(batch.key.accountId), batch.createdAt, batch.id)
      .pexpire(this.batchesKey(batch.key.accountId), BATCH_RECORD_TTL_MS)
      .exec();
  }

  /** The batch; with `accountId`, only when it is that account's. */
  async batch(id: string, accountId?: string): Promise<StoredBatch | null> {
    const h = await this.redis.hgetall(this.batchKey(id));
    if (!h.meta) return null;
    const batch = { ...(JSON.parse(h.meta) as StoredBatch), status: h.status as BatchStatus } as StoredBatch;
    for (const field of NUMBER_FIELDS) if (h[field] !== undefined && h[field] !== '') (batch as unknown as Record<string, number>)[field] = Number(h[field]);
    if (h.outputFileId) batch.outputFileId = h.outputFileId;
    if (h.errorFileId) batch.errorFileId = h.errorFileId;
    if (h.error) batch.error = JSON.parse(h.error) as StoredBatch['error'];
    return accountId === undefined || batch.key.accountId === accountId ? batch : null;
  }

  async batches(accountId: string, limit: number, after?: string): Promise<StoredBatch[]> {
    const ids = await this.redis.zrevrange(this.batchesKey(accountId), 0, -1);
    const start = startAfter(ids, after);
    const found = await Promise.all(ids.slice(start, start + limit).map((id) => this.batch(id, accountId)));
    return found.filter((b): b is StoredBatch => b !== null);
  }

  /**
   * Moves the batch to `to` when its status is one of `from`, setting `fields` in the same step
   * (a worker that lost the batch to another sets nothing); false when it was not.
   */
  async moveStatus(id: string, from: readonly BatchStatus[], to: BatchStatus, fields: TerminalFields = {}): Promise<boolean> {
    const field = STATUS_TIME[to] ?? 'unused';
    const pairs = Object.entries(fields).flatMap(([k, v]) => (v === undefined ? [] : [k, v]));
    const moved = await this.redis.eval(MOVE_STATUS, 1, this.batchKey(id), to, field, String(Date.now()), String(from.length), ...from, ...pairs);
    return moved === 1;
  }

  /** Records a finished line once (a rerun after a restart does not count it again). */
  async recordLine(id: string, index: number, line: BatchOutputLine, success: boolean, ttlMs: number): Promise<void> {
    const counter = success ? 'completed' : 'failed';
    await this.redis.eval(RECORD_LINE, 2, this.resultsKey(id), this.batchKey(id), String(index), JSON.stringify(line), String(Math.max(1, ttlMs)), counter);
  }

  async results(id: string): Promise<Map<number, BatchOutputLine>> {
    const h = await this.redis.hgetall(this.resultsKey(id));
    return new Map(Object.entries(h).map(([i, json]) => [Number(i), JSON.parse(json) as BatchOutputLine]));
  }

  async dropResults(id: string): Promise<void> {
    await this.redis.del(this.resultsKey(id));
  }

  private fileKey = (id: string) => `${this.p}file:${id}`;
  private filesKey = (accountId: string) => `${this.p}files:${accountId}`;
  private batchKey = (id: string) => `${this.p}batch:${id}`;
  private batchesKey = (accountId: string) => `${this.p}batches:${accountId}`;
  private resultsKey = (id: string) => `${this.p}results:${id}`;
}
