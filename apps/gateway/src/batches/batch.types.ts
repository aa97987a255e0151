import { AuthenticatedKey } from '@svc/contracts';

/** What a batch may name as its `endpoint` (any other is a 400): the text routes and embeddings. */
export const BATCH_ENDPOINTS = ['/v1/chat/completions', '/v1/completions', '/v1/responses', '/v1/embeddings'] as const;
export type BatchEndpoint = (typeof BATCH_ENDPOINTS)[number];

export type BatchStatus = 'validating' | 'failed' | 'in_progress' | 'finalizing' | 'completed' | 'expired' | 'cancelling' | 'cancelled';
export const TERMINAL_STATUSES: readonly BatchStatus[] = ['failed', 'completed', 'expired', 'cancelled'];

export type FilePurpose = 'batch' | 'batch_output';

/** A file's metadata (in Redis with the same TTL as its bytes, which live in the blob store). */
export interface StoredFile {
  id: string;
  accountId: string;
  purpose: FilePurpose;
  filename: string;
  bytes: number;
  createdAt: number;
  expiresAt: number;
  blobId: string;
}

/** The OpenAI `OpenAIFile` object. */
export interface OpenAIFile {
  id: string;
  object: 'file';
  bytes: number;
  created_at: number;
  expires_at: number;
  filename: string;
  purpose: FilePurpose;
  status: 'processed';
}

/**
 * A batch's record: what never changes after creation (the key's snapshot: its id, account and
 * limits, never its secret), and the fields the worker and cancel update one by one.
 */
export interface StoredBatch {
  id: string;
  key: AuthenticatedKey;
  ip: string;
  endpoint: BatchEndpoint;
  inputFileId: string;
  completionWindow: '24h';
  metadata: Record<string, string> | null;
  createdAt: number;
  expiresAt: number;
  status: BatchStatus;
  total: number;
  completed: number;
  failed: number;
  inProgressAt?: number;
  finalizingAt?: number;
  completedAt?: number;
  failedAt?: number;
  cancellingAt?: number;
  cancelledAt?: number;
  expiredAt?: number;
  outputFileId?: string;
  errorFileId?: string;
  /** Why a batch failed as a whole (the input file was gone). */
  error?: { code: string; message: string };
}

/** One line of the input, as validated at creation. */
export interface BatchLine {
  index: number;
  customId: string;
  body: Record<string, unknown>;
}

/** One line of an output or error file. */
export interface BatchOutputLine {
  id: string;
  custom_id: string;
  response: { status_code: number; request_id: string; body: unknown } | null;
  error: { code: string; message: string } | null;
}
