import { render, screen } from '@testing-library/react';
import { vi } from 'vitest';
import { fakeApi, json } from '../../testing/fake-api';
import { JobProgress } from './JobProgress';

describe('a long job', () => {
  it('shows its progress while it runs, then plays the audio', async () => {
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL: () => 'blob:job-audio', revokeObjectURL: () => undefined }));
    let polls = 0;
    const calls = fakeApi({
      'POST /api/v1/audio/retrieve': () =>
        ++polls === 1
          ? json({ status: 'PROCESSING', progress: 40, average_execution_time: 3000, execution_duration: 1200 })
          : new Response(new Uint8Array([82, 73, 70, 70]), { headers: { 'content-type': 'audio/wav' } }),
    });
    const job = { kind: 'audio' as const, model: 'svc-flite', queueId: 'q1', label: 'Hello', queuedAt: '2026-11-25T00:00:00Z' };
    const { container } = render(<JobProgress job={job} session={{ key: 'k', type: 'INFERENCE' }} onRemove={() => undefined} />);
    expect(await screen.findByText(/PROCESSING 40%/)).toBeInTheDocument();
    expect(screen.getByRole('progressbar', { name: 'Progress of Hello' })).toHaveAttribute('value', '40');
    await screen.findByText(/COMPLETED 100%/, undefined, { timeout: 4_000 });
    expect(container.querySelector('audio')).toHaveAttribute('src', 'blob:job-audio');
    expect(calls.map((c) => c.body)).toEqual([
      { model: 'svc-flite', queue_id: 'q1' },
      { model: 'svc-flite', queue_id: 'q1' },
    ]);
  });

  it("stops at the API's message when the job is unknown", async () => {
    fakeApi({ 'POST /api/v1/audio/retrieve': () => json({ error: 'Audio job "q2" not found.' }, 404) });
    const job = { kind: 'audio' as const, model: 'svc-flite', queueId: 'q2', label: 'Gone', queuedAt: '2026-11-25T00:00:00Z' };
    render(<JobProgress job={job} session={{ key: 'k', type: 'INFERENCE' }} onRemove={() => undefined} />);
    expect(await screen.findByRole('alert')).toHaveTextContent('Audio job "q2" not found.');
  });
});
