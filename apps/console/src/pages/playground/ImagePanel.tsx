import { FormEvent, useEffect, useState } from 'react';
import { call } from '../../api/client';
import { ErrorNote } from '../../components/ErrorNote';
import { costOf } from '../../lib/cost';
import { useAction } from '../../lib/use-action';
import { CostNote } from './CostNote';
import { ModelPicker } from './ModelPicker';
import { useModels } from './use-models';

/** POST /image/generate with return_binary, shown as a blob: URL (the CSP allows blob: images). */
export function ImagePanel({ apiKey }: { apiKey: string }) {
  const models = useModels('image');
  const [model, setModel] = useState('');
  const [prompt, setPrompt] = useState('');
  const [size, setSize] = useState(256);
  const [image, setImage] = useState<{ url: string; prompt: string; blurred: boolean }>();
  const [cost, setCost] = useState<{ nano: bigint | null; before: string | null }>();
  const { busy, error, run } = useAction();
  const chosen = model || models.data?.[0]?.id || '';
  useEffect(() => () => (image ? URL.revokeObjectURL(image.url) : undefined), [image]);
  const generate = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      const response = await call('/image/generate', {
        key: apiKey,
        method: 'POST',
        body: { model: chosen, prompt, width: size, height: size, format: 'png', return_binary: true },
      });
      setImage({ url: URL.createObjectURL(await response.blob()), prompt, blurred: response.headers.get('x-svc-is-blurred') === 'true' });
      const pricing = models.data?.find((m) => m.id === chosen)?.model_spec.pricing;
      setCost({ nano: pricing ? costOf(pricing, { kind: 'image', images: 1 }) : null, before: response.headers.get('x-svc-balance-usd') });
    });
  };
  return (
    <section aria-label="Image generation" className="card">
      <form onSubmit={generate} className="fields">
        <ModelPicker id="image-model" models={models.data} value={chosen} onChange={setModel} />
        <label htmlFor="image-prompt">Prompt</label>
        <textarea id="image-prompt" required rows={2} value={prompt} onChange={(e) => setPrompt(e.target.value)} />
        <label htmlFor="image-size">Size</label>
        <select id="image-size" value={size} onChange={(e) => setSize(Number(e.target.value))}>
          {[256, 512, 1024].map((s) => (
            <option key={s} value={s}>
              {s} × {s}
            </option>
          ))}
        </select>
        <button type="submit" disabled={busy || !chosen}>
          {busy ? 'Generating…' : 'Generate'}
        </button>
      </form>
      {image && (
        <figure>
          <img src={image.url} alt={`Generated: ${image.prompt}`} width={size} height={size} data-testid="generated-image" />
          {image.blurred && <figcaption>Safe mode blurred this image.</figcaption>}
        </figure>
      )}
      <CostNote nano={cost?.nano} balanceBefore={cost?.before} />
      <ErrorNote message={error} />
    </section>
  );
}
