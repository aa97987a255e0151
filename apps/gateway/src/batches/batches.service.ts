import { Inject, Injectable } from '@nestjs/common';
import { AuthenticatedKey } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { parseBatchInput } from './batch-input';
import { isBatchId, newBatchId } from './batch-ids';
import { CANCELLABLE, listPage, toOpenAIBatch } from './batch-object';
import { BatchRunner } from './batch-runner';
import { BatchStore } from './batch-store';
import { BATCH_CONFIG, BatchConfig } from './batch.config';
import { BatchEndpoint, StoredBatch } from './batch.types';
import { FilesService } from './files.service';

const WINDOW_MS = 24 * 60 * 60_000;

export interface CreateBatch {
  input_file_id: string;
  endpoint: BatchEndpoint;
  completion_window: '24h';
  metadata?: Record<string, string> | null;
}

const notFound = (id: string) => new DomainError(ErrorCode.NotFound, `No batch with id "${id}".`);

/** `/batches`: create (every line checked first), read, list and cancel the account's batches (docs/batches.md). */
@Injectable()
export class BatchesService {
  constructor(
    private readonly store: BatchStore,
    private readonly files: FilesService,
    private readonly runner: BatchRunner,
    @Inject(BATCH_CONFIG) private readonly config: BatchConfig,
  ) {}

  async create(key: AuthenticatedKey, ip: string, input: CreateBatch): Promise<ReturnType<typeof toOpenAIBatch>> {
    const file = await this.files.own(key.accountId, input.input_file_id);
    if (file.purpose !== 'batch')
      throw new DomainError(ErrorCode.Validation, `File ${file.id} has purpose "${file.purpose}"; a batch's input must have purpose "batch".`);
    const content = await this.store.content(file);
    if (!content) throw new DomainError(ErrorCode.NotFound, `No file with id "${file.id}".`);
    const lines = parseBatchInput(content.toString('utf8'), input.endpoint, this.config.BATCH_MAX_LINES);
    const now = Date.now();
    const batch: StoredBatch = {
      id: newBatchId(),
      key,
      ip,
      endpoint: input.endpoint,
      inputFileId: file.id,
      completionWindow: input.completion_window,
      metadata: input.metadata ?? null,
      createdAt: now,
      expiresAt: now + WINDOW_MS,
      status: 'validating',
      total: lines.length,
      completed: 0,
      failed: 0,
    };
    // The input must outlive the window; it is deleted when the batch ends.
    if (file.expiresAt < batch.expiresAt + 60_000) await this.store.extendFile(file, batch.expiresAt + 60_000);
    await this.store.createBatch(batch);
    await this.runner.enqueue(batch.id);
    return toOpenAIBatch(batch);
  }

  async get(accountId: string, id: string): Promise<ReturnType<typeof toOpenAIBatch>> {
    return toOpenAIBatch(await this.own(accountId, id));
  }

  async list(accountId: string, limit: number, after?: string) {
    return listPage((await this.store.batches(accountId, limit + 1, after)).map(toOpenAIBatch), limit);
  }

  /** Lines not yet started are not run; the one running finishes (and is charged). A terminal batch is answered as it is. */
  async cancel(accountId: string, id: string): Promise<ReturnType<typeof toOpenAIBatch>> {
    await this.own(accountId, id);
    await this.store.moveStatus(id, CANCELLABLE, 'cancelling');
    return toOpenAIBatch(await this.own(accountId, id));
  }

  private async own(accountId: string, id: string): Promise<StoredBatch> {
    const batch = isBatchId(id) ? await this.store.batch(id, accountId) : null;
    if (!batch) throw notFound(id);
    return batch;
  }
}
