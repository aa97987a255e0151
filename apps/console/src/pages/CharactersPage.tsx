import { useState } from 'react';
import { callJson } from '../api/client';
import { Session } from '../api/session';
import { Character } from '../api/types';
import { ErrorNote } from '../components/ErrorNote';
import { messageOf, useApi } from '../lib/use-api';
import { CharacterForm } from './characters/CharacterForm';

const PAGE = 24;

/** Browse characters (any key); create and edit them (ADMIN; the API refuses what the account does not own). */
export function CharactersPage({ session }: { session: Session }) {
  const [offset, setOffset] = useState(0);
  const [search, setSearch] = useState('');
  const [editing, setEditing] = useState<Character>();
  const [editError, setEditError] = useState<string>();
  const list = useApi(
    async (signal) => {
      const { data, headers } = await callJson<{ data: Character[] }>('/characters', {
        key: session.key,
        query: { limit: PAGE, offset, search: search.trim() || undefined },
        signal,
      });
      return { items: data.data, total: Number(headers.get('x-pagination-total') ?? data.data.length) };
    },
    [session.key, offset, search],
  );
  const edit = async (slug: string) => {
    setEditError(undefined);
    try {
      setEditing((await callJson<{ data: Character }>(`/characters/${encodeURIComponent(slug)}`, { key: session.key })).data.data);
    } catch (err) {
      setEditError(messageOf(err));
    }
  };
  const admin = session.type === 'ADMIN';
  return (
    <>
      {admin && (
        <section aria-labelledby="new-character" className="card">
          <h2 id="new-character">{editing ? `Edit ${editing.name}` : 'Create a character'}</h2>
          <CharacterForm
            key={editing?.slug ?? 'new'}
            session={session}
            character={editing}
            onSaved={() => {
              setEditing(undefined);
              list.reload();
            }}
            onCancel={editing ? () => setEditing(undefined) : undefined}
          />
        </section>
      )}
      <div className="toolbar">
        <label htmlFor="character-search">Search</label>
        <input
          id="character-search"
          type="search"
          value={search}
          onChange={(e) => {
            setSearch(e.target.value);
            setOffset(0);
          }}
        />
      </div>
      <ErrorNote message={list.error ?? editError} />
      <ul className="grid">
        {list.data?.items.map((c) => (
          <li key={c.slug} className="card">
            <h2>{c.name}</h2>
            <p>
              <code>{c.slug}</code> · {c.modelId}
            </p>
            {c.description && <p>{c.description}</p>}
            {c.tags.length > 0 && <p className="hint">{c.tags.join(', ')}</p>}
            {admin && (
              <button type="button" onClick={() => void edit(c.slug)} aria-label={`Edit ${c.name}`}>
                Edit
              </button>
            )}
          </li>
        ))}
      </ul>
      <nav aria-label="Character pages" className="actions">
        <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - PAGE))}>
          Previous page
        </button>
        <button type="button" disabled={!list.data || offset + PAGE >= list.data.total} onClick={() => setOffset(offset + PAGE)}>
          Next page
        </button>
      </nav>
    </>
  );
}
