import { FormEvent, useState } from 'react';
import { call } from '../../api/client';
import { ErrorNote } from '../../components/ErrorNote';
import { costOf } from '../../lib/cost';
import { useAction } from '../../lib/use-action';
import { CostNote } from './CostNote';
import { ModelPicker } from './ModelPicker';
import { useModels } from './use-models';

/** POST /audio/transcriptions with an uploaded file (multipart), verbose_json for the duration. */
export function TranscribePanel({ apiKey }: { apiKey: string }) {
  const models = useModels('asr');
  const [model, setModel] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [text, setText] = useState<string>();
  const [cost, setCost] = useState<{ nano: bigint | null; before: string | null }>();
  const { busy, error, run } = useAction();
  const chosen = model || models.data?.[0]?.id || '';
  const transcribe = (e: FormEvent) => {
    e.preventDefault();
    if (!file) return;
    void run(async () => {
      const form = new FormData();
      form.set('model', chosen);
      form.set('response_format', 'verbose_json');
      form.set('file', file);
      const response = await call('/audio/transcriptions', { key: apiKey, method: 'POST', body: form });
      const body = (await response.json()) as { text: string; duration?: number };
      setText(body.text);
      const pricing = models.data?.find((m) => m.id === chosen)?.model_spec.pricing;
      const nano = pricing && body.duration !== undefined ? costOf(pricing, { kind: 'transcription', audioMs: Math.round(body.duration * 1000) }) : null;
      setCost({ nano, before: response.headers.get('x-svc-balance-usd') });
    });
  };
  return (
    <section aria-label="Transcription" className="card">
      <form onSubmit={transcribe} className="fields">
        <ModelPicker id="asr-model" models={models.data} value={chosen} onChange={setModel} />
        <label htmlFor="asr-file">Audio file</label>
        <input id="asr-file" type="file" accept="audio/*" required onChange={(e) => setFile(e.target.files?.[0] ?? null)} />
        <button type="submit" disabled={busy || !chosen || !file}>
          {busy ? 'Transcribing…' : 'Transcribe'}
        </button>
      </form>
      {text !== undefined && (
        <blockquote data-testid="transcript" aria-label="Transcript">
          {text || '(no speech recognized)'}
        </blockquote>
      )}
      <CostNote nano={cost?.nano} balanceBefore={cost?.before} approximate />
      <ErrorNote message={error} />
    </section>
  );
}
