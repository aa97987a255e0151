import { Job, Queue } from 'bullmq';
import { Catalog } from '@svc/catalog';
import { BlobStore } from '@svc/blob-store';
import { JobConnections } from '@svc/jobs';
import { Logger } from '@svc/logging';
import { BillingSettler } from '@svc/billing-client';
import { AudioPayloads } from '../audio-payloads';
import { AudioConfig } from '../config';
import { AudioEngineRegistry } from '../engines/engine-registry';
import { AudioJobData, AudioJobResult } from './audio-job.types';
import { AudioJobsService } from './audio-jobs.service';

jest.mock('bullmq', () => ({ Queue: jest.fn().mockImplementation(() => ({ close: jest.fn() })), Worker: jest.fn() }));
jest.mock('ioredis', () => jest.fn().mockImplementation(() => ({ on: jest.fn(), quit: jest.fn() })));

const logger = { info: jest.fn(), warn: jest.fn(), error: jest.fn() } as unknown as Logger;

function service(settle: jest.Mock): AudioJobsService {
  return new AudioJobsService(
    {} as Catalog,
    {} as AudioEngineRegistry,
    {} as AudioPayloads,
    { settle } as unknown as BillingSettler,
    {} as BlobStore,
    { REDIS_URL: 'redis://127.0.0.1:1', AUDIO_QUEUE_PREFIX: 'test' } as AudioConfig,
    logger,
    {} as Queue<AudioJobData, AudioJobResult>,
    { connect: jest.fn() } as unknown as JobConnections,
  );
}

function job(attemptsMade: number, attempts: number): Job<AudioJobData, AudioJobResult> {
  return {
    id: 'q1',
    attemptsMade,
    opts: { attempts },
    data: {
      accountId: 'a',
      requestId: 'r1',
      characters: 5,
      billing: { reservationId: 'res-1' },
      params: { model: 'svc-flite', prompt: 'Hello', voice: 'slt', response_format: 'mp3', speed: 1 },
    },
    updateData: jest.fn().mockResolvedValue(undefined),
  } as unknown as Job<AudioJobData, AudioJobResult>;
}

describe('AudioJobsService failure handling', () => {
  const onFailed = (s: AudioJobsService, j: Job<AudioJobData, AudioJobResult>) =>
    (s as unknown as { onFailed(j: Job, e: Error): Promise<void> }).onFailed(j, new Error('boom'));

  it('keeps the hold while attempts remain', async () => {
    const settle = jest.fn();
    const j = job(1, 3);
    await onFailed(service(settle), j);
    expect(settle).not.toHaveBeenCalled();
    expect(j.updateData).not.toHaveBeenCalled();
  });

  it('releases the hold (nothing charged) and blanks the text after the last attempt', async () => {
    const settle = jest.fn();
    const j = job(3, 3);
    await onFailed(service(settle), j);
    expect(settle).toHaveBeenCalledWith({ reservationId: 'res-1' }, 'r1', 'failed', null);
    expect(j.updateData).toHaveBeenCalledWith(expect.objectContaining({ params: expect.objectContaining({ prompt: '' }) }));
  });
});
