import { useState } from 'react';
import { callJson } from '../api/client';
import { Model } from '../api/types';
import { ErrorNote } from '../components/ErrorNote';
import { useApi } from '../lib/use-api';
import { capabilityNames, priceLines } from './models/prices';

/**
 * The `type` filter of GET /models: `all`, every model type of the catalog (libs/catalog's
 * MODEL_TYPES; ModelsPage.test.tsx fails when one is missing here), and `code` (text models
 * optimized for code).
 */
export const MODEL_TYPES = [
  'all',
  'text',
  'image',
  'inpaint',
  'upscale',
  'background-remove',
  'embedding',
  'tts',
  'asr',
  'music',
  'video',
  'moderation',
  'code',
] as const;

/** GET /models (public): type filter, prices, context sizes, capabilities, deprecation notices. */
export function ModelsPage() {
  const [type, setType] = useState<string>('all');
  const models = useApi(async (signal) => (await callJson<{ data: Model[] }>('/models', { key: '', query: { type }, signal })).data.data, [type]);
  return (
    <>
      <div className="toolbar">
        <label htmlFor="model-type">Type</label>
        <select id="model-type" value={type} onChange={(e) => setType(e.target.value)}>
          {MODEL_TYPES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </div>
      <ErrorNote message={models.error} />
      <ul className="models">
        {models.data?.map((m) => {
          const spec = m.model_spec;
          const caps = capabilityNames(spec.capabilities);
          return (
            <li key={m.id} className="card" aria-label={`Model ${m.id}`}>
              <h2>
                {spec.name} <code>{m.id}</code> <span className="badge">{m.type}</span>
              </h2>
              {spec.deprecation && (
                <p className="warning" role="note">
                  Deprecated: removed on {spec.deprecation.date}
                  {spec.deprecation.replacementModelId ? `; use ${spec.deprecation.replacementModelId} instead` : ''}.
                </p>
              )}
              {spec.description && <p>{spec.description}</p>}
              <dl className="key-facts">
                {spec.availableContextTokens !== undefined && (
                  <>
                    <dt>Context</dt>
                    <dd>{spec.availableContextTokens.toLocaleString()} tokens</dd>
                  </>
                )}
                <dt>Prices</dt>
                <dd>{priceLines(spec.pricing).join('; ') || '—'}</dd>
                {caps.length > 0 && (
                  <>
                    <dt>Capabilities</dt>
                    <dd>{caps.join(', ')}</dd>
                  </>
                )}
                {!!spec.traits?.length && (
                  <>
                    <dt>Traits</dt>
                    <dd>{spec.traits.join(', ')}</dd>
                  </>
                )}
              </dl>
            </li>
          );
        })}
      </ul>
    </>
  );
}
