import { FormEvent, useState } from 'react';
import { callJson } from '../api/client';
import { Session } from '../api/session';
import { Model } from '../api/types';
import { ErrorNote } from '../components/ErrorNote';
import { messageOf, useApi } from '../lib/use-api';
import { JobProgress } from './jobs/JobProgress';
import { loadJobs, QueuedJob, saveJobs } from './jobs/job-store';

/** Whether this server has video routes: the published API description says (GET /openapi.json). */
async function hasVideo(signal: AbortSignal): Promise<boolean> {
  const { data } = await callJson<{ paths: Record<string, unknown> }>('/openapi.json', { key: '', signal });
  return Object.hasOwn(data.paths, '/video/queue') && Object.hasOwn(data.paths, '/video/retrieve');
}

/** Long jobs: queue speech (and video where the server has it) and follow their progress. */
export function JobsPage({ session }: { session: Session }) {
  const [jobs, setJobs] = useState<QueuedJob[]>(loadJobs);
  const [kind, setKind] = useState<'audio' | 'video'>('audio');
  const [model, setModel] = useState('');
  const [prompt, setPrompt] = useState('');
  const [error, setError] = useState<string>();
  const video = useApi(hasVideo, []);
  const models = useApi(
    async (signal) => (await callJson<{ data: Model[] }>('/models', { key: '', query: { type: kind === 'audio' ? 'tts' : 'video' }, signal })).data.data,
    [kind],
  );
  const chosen = model || models.data?.[0]?.id || '';
  const update = (next: QueuedJob[]) => {
    setJobs(next);
    saveJobs(next);
  };
  const queue = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      const body = kind === 'audio' ? { model: chosen, prompt } : { model: chosen, prompt, duration: '5s' };
      const { data } = await callJson<{ queue_id: string; model: string }>(`/${kind}/queue`, { key: session.key, method: 'POST', body });
      update([{ kind, model: data.model ?? chosen, queueId: data.queue_id, label: prompt.slice(0, 40), queuedAt: new Date().toISOString() }, ...jobs]);
      setPrompt('');
    } catch (err) {
      setError(messageOf(err));
    }
  };
  return (
    <>
      <section aria-labelledby="queue-title" className="card">
        <h2 id="queue-title">Queue a job</h2>
        <form onSubmit={(e) => void queue(e)} className="fields">
          <label htmlFor="job-kind">Kind</label>
          <select id="job-kind" value={kind} onChange={(e) => setKind(e.target.value as 'audio' | 'video')}>
            <option value="audio">Speech (audio queue)</option>
            {video.data && <option value="video">Video</option>}
          </select>
          <label htmlFor="job-model">Model</label>
          <select id="job-model" value={chosen} onChange={(e) => setModel(e.target.value)}>
            {models.data?.map((m) => (
              <option key={m.id} value={m.id}>
                {m.model_spec.name} ({m.id})
              </option>
            ))}
          </select>
          <label htmlFor="job-prompt">{kind === 'audio' ? 'Text to read' : 'Prompt'}</label>
          <textarea id="job-prompt" required rows={3} value={prompt} onChange={(e) => setPrompt(e.target.value)} />
          <button type="submit" disabled={!chosen}>
            Queue
          </button>
          <ErrorNote message={error ?? models.error} />
        </form>
        {video.data === false && <p className="hint">This server has no video routes: only audio jobs are listed.</p>}
      </section>
      <ul className="jobs">
        {jobs.map((job) => (
          <JobProgress key={job.queueId} job={job} session={session} onRemove={() => update(jobs.filter((j) => j.queueId !== job.queueId))} />
        ))}
      </ul>
    </>
  );
}
