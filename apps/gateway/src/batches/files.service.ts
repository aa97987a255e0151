import { Inject, Injectable } from '@nestjs/common';
import { DomainError, ErrorCode } from '@svc/errors';
import { countJsonlLines } from './batch-input';
import { isFileId, newFileId } from './batch-ids';
import { listPage, toOpenAIFile } from './batch-object';
import { ListFilesQuery } from './batch-request.dto';
import { BatchStore } from './batch-store';
import { BATCH_CONFIG, BatchConfig } from './batch.config';
import { OpenAIFile, StoredFile } from './batch.types';

export interface FileUpload {
  file: Buffer;
  filename: string;
  purpose: string;
}

const notFound = (id: string) => new DomainError(ErrorCode.NotFound, `No file with id "${id}".`);

/** `/files`: batch inputs uploaded, batch outputs read, each only by its own account (docs/batches.md). */
@Injectable()
export class FilesService {
  constructor(
    private readonly store: BatchStore,
    @Inject(BATCH_CONFIG) private readonly config: BatchConfig,
  ) {}

  async upload(accountId: string, upload: FileUpload): Promise<OpenAIFile> {
    if (upload.purpose !== 'batch')
      throw new DomainError(ErrorCode.Validation, `purpose "${upload.purpose}" is not supported; this server stores files with purpose "batch" only.`, {
        _errors: [],
        purpose: { _errors: ['must be "batch"'] },
      });
    const max = this.config.BATCH_FILE_MAX_BYTES;
    if (upload.file.length > max) throw new DomainError(ErrorCode.PayloadTooLarge, `The file has ${upload.file.length} bytes; files may have at most ${max}.`);
    const lines = countJsonlLines(upload.file.toString('utf8'));
    if (lines > this.config.BATCH_MAX_LINES)
      throw new DomainError(ErrorCode.Validation, `The file has ${lines} lines; a batch input may have at most ${this.config.BATCH_MAX_LINES}.`, {
        _errors: [],
        file: { _errors: [`at most ${this.config.BATCH_MAX_LINES} lines`] },
      });
    const now = Date.now();
    const stored = await this.store.putFile(
      {
        id: newFileId(),
        accountId,
        purpose: 'batch',
        filename: upload.filename,
        bytes: upload.file.length,
        createdAt: now,
        expiresAt: now + this.config.BATCH_FILE_TTL_MS,
      },
      upload.file,
    );
    return toOpenAIFile(stored);
  }

  /** A page of the account's files (OpenAI's ListFilesResponse), read one past `limit` to know `has_more`. */
  async list(accountId: string, query: ListFilesQuery) {
    return listPage((await this.store.files(accountId, query, query.limit + 1)).map(toOpenAIFile), query.limit);
  }

  async get(accountId: string, id: string): Promise<OpenAIFile> {
    return toOpenAIFile(await this.own(accountId, id));
  }

  async content(accountId: string, id: string): Promise<Buffer> {
    const bytes = await this.store.content(await this.own(accountId, id));
    if (!bytes) throw notFound(id);
    return bytes;
  }

  async delete(accountId: string, id: string): Promise<{ id: string; object: 'file'; deleted: true }> {
    await this.store.deleteFile(await this.own(accountId, id));
    return { id, object: 'file', deleted: true };
  }

  /** The account's file; another account's, an expired or an unknown one is a 404. */
  async own(accountId: string, id: string): Promise<StoredFile> {
    const file = isFileId(id) ? await this.store.file(accountId, id) : null;
    if (!file) throw notFound(id);
    return file;
  }
}
