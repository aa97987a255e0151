import { useEffect, useState } from 'react';
import { call } from '../../api/client';
import { Session } from '../../api/session';
import { ErrorNote } from '../../components/ErrorNote';
import { messageOf } from '../../lib/use-api';
import { QueuedJob } from './job-store';

interface Status {
  status: string;
  progress?: number;
  execution_duration?: number;
  average_execution_time?: number;
}

export const POLL_MS = 1_000;

/**
 * Polls `POST /{audio|video}/retrieve` until the job's media comes back (a non-JSON answer),
 * showing its progress; then plays it. The media is fetched with the key, shown as a blob: URL.
 */
export function JobProgress({ job, session, onRemove }: { job: QueuedJob; session: Session; onRemove: () => void }) {
  const [status, setStatus] = useState<Status>({ status: 'QUEUED' });
  const [media, setMedia] = useState<{ url: string; type: string }>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let url: string | undefined;
    const poll = async () => {
      try {
        const response = await call(`/${job.kind}/retrieve`, { key: session.key, method: 'POST', body: { model: job.model, queue_id: job.queueId } });
        const type = response.headers.get('content-type') ?? '';
        if (type.startsWith('application/json')) {
          const body = (await response.json()) as Status;
          if (stopped) return;
          setStatus(body);
          // COMPLETED as JSON: the media went to storage (a download URL), nothing to play here.
          if (body.status !== 'COMPLETED' && body.status !== 'FAILED') timer = setTimeout(() => void poll(), POLL_MS);
          return;
        }
        url = URL.createObjectURL(await response.blob());
        if (!stopped) {
          setStatus({ status: 'COMPLETED', progress: 100 });
          setMedia({ url, type });
        }
      } catch (err) {
        if (!stopped) setError(messageOf(err));
      }
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
      if (url) URL.revokeObjectURL(url);
    };
  }, [job, session.key]);
  const progress =
    status.progress ??
    (status.average_execution_time && status.execution_duration ? Math.min(99, (100 * status.execution_duration) / status.average_execution_time) : undefined);
  return (
    <li className="card" aria-label={`${job.kind} job ${job.label}`}>
      <p>
        <span className="badge">{job.kind}</span> {job.label} · <code>{job.model}</code>
      </p>
      <label>
        {status.status}
        {progress !== undefined ? ` ${Math.round(progress)}%` : ''}
        <progress max={100} value={progress} aria-label={`Progress of ${job.label}`} />
      </label>
      {media && (media.type.startsWith('video/') ? <video controls src={media.url} /> : <audio controls src={media.url} />)}
      <ErrorNote message={error} />
      <button type="button" onClick={onRemove}>
        Remove from list
      </button>
    </li>
  );
}
