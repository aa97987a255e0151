import { FormEvent, useEffect, useState } from 'react';
import { call } from '../../api/client';
import { ErrorNote } from '../../components/ErrorNote';
import { costOf } from '../../lib/cost';
import { useAction } from '../../lib/use-action';
import { CostNote } from './CostNote';
import { ModelPicker } from './ModelPicker';
import { useModels } from './use-models';

/** POST /audio/speech (WAV), played in an audio element. */
export function SpeechPanel({ apiKey }: { apiKey: string }) {
  const models = useModels('tts');
  const [model, setModel] = useState('');
  const [text, setText] = useState('');
  const [audio, setAudio] = useState<string>();
  const [cost, setCost] = useState<{ nano: bigint | null; before: string | null }>();
  const { busy, error, run } = useAction();
  const chosen = model || models.data?.[0]?.id || '';
  useEffect(() => () => (audio ? URL.revokeObjectURL(audio) : undefined), [audio]);
  const speak = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      const response = await call('/audio/speech', { key: apiKey, method: 'POST', body: { model: chosen, input: text, response_format: 'wav' } });
      setAudio(URL.createObjectURL(await response.blob()));
      const pricing = models.data?.find((m) => m.id === chosen)?.model_spec.pricing;
      setCost({ nano: pricing ? costOf(pricing, { kind: 'speech', characters: [...text].length }) : null, before: response.headers.get('x-svc-balance-usd') });
    });
  };
  return (
    <section aria-label="Text to speech" className="card">
      <form onSubmit={speak} className="fields">
        <ModelPicker id="speech-model" models={models.data} value={chosen} onChange={setModel} />
        <label htmlFor="speech-text">Text</label>
        <textarea id="speech-text" required rows={3} value={text} onChange={(e) => setText(e.target.value)} />
        <button type="submit" disabled={busy || !chosen}>
          {busy ? 'Synthesizing…' : 'Speak'}
        </button>
      </form>
      {audio && <audio controls src={audio} aria-label="Synthesized speech" data-testid="speech-audio" />}
      <CostNote nano={cost?.nano} balanceBefore={cost?.before} />
      <ErrorNote message={error} />
    </section>
  );
}
