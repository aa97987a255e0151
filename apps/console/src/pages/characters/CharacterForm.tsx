import { FormEvent, useState } from 'react';
import { callJson } from '../../api/client';
import { Session } from '../../api/session';
import { Character } from '../../api/types';
import { ErrorNote } from '../../components/ErrorNote';
import { messageOf } from '../../lib/use-api';

interface Props {
  session: Session;
  /** The character to edit (its slug is kept), or undefined to create one. */
  character?: Character;
  onSaved: () => void;
  onCancel?: () => void;
}

const splitList = (s: string) =>
  s
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);

/** Create or edit (POST /characters with the slug again) a character, as an ADMIN key. */
export function CharacterForm({ session, character, onSaved, onCancel }: Props) {
  const [v, setV] = useState({
    slug: character?.slug ?? '',
    name: character?.name ?? '',
    description: character?.description ?? '',
    systemPrompt: character?.systemPrompt ?? '',
    modelId: character?.modelId ?? 'default',
    tags: character?.tags.join(', ') ?? '',
  });
  const [error, setError] = useState<string>();
  const id = (name: string) => `character-${character?.slug ?? 'new'}-${name}`;
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(undefined);
    try {
      await callJson('/characters', {
        key: session.key,
        method: 'POST',
        body: { slug: v.slug, name: v.name, description: v.description || null, systemPrompt: v.systemPrompt, modelId: v.modelId, tags: splitList(v.tags) },
      });
      onSaved();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  const field = (name: keyof typeof v, label: string, props: Record<string, unknown> = {}) => (
    <>
      <label htmlFor={id(name)}>{label}</label>
      <input id={id(name)} value={v[name]} onChange={(e) => setV({ ...v, [name]: e.target.value })} {...props} />
    </>
  );
  return (
    <form onSubmit={(e) => void submit(e)} className="fields">
      {field('slug', 'Slug', { required: true, readOnly: !!character, pattern: '[a-z0-9][a-z0-9-]*' })}
      {field('name', 'Name', { required: true })}
      {field('description', 'Description')}
      <label htmlFor={id('prompt')}>System prompt</label>
      <textarea id={id('prompt')} required rows={4} value={v.systemPrompt} onChange={(e) => setV({ ...v, systemPrompt: e.target.value })} />
      {field('modelId', 'Model', { required: true })}
      {field('tags', 'Tags (comma separated)')}
      <div className="actions">
        <button type="submit">{character ? 'Save character' : 'Create character'}</button>
        {onCancel && (
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        )}
      </div>
      <ErrorNote message={error} />
    </form>
  );
}
