import { KeyboardEvent, useState } from 'react';
import { Session } from '../../api/session';
import { ChatPanel } from './ChatPanel';
import { ImagePanel } from './ImagePanel';
import { SpeechPanel } from './SpeechPanel';
import { TranscribePanel } from './TranscribePanel';

const TABS = [
  { id: 'chat', label: 'Chat' },
  { id: 'image', label: 'Image' },
  { id: 'speech', label: 'Text to speech' },
  { id: 'transcribe', label: 'Transcription' },
] as const;
type TabId = (typeof TABS)[number]['id'];

/**
 * Try the models. Calls go with the signed-in key, or with another key pasted here (kept in this
 * page's memory only): an admin can try a key they just created under its own limits.
 */
export function PlaygroundPage({ session }: { session: Session }) {
  const [tab, setTab] = useState<TabId>('chat');
  const [otherKey, setOtherKey] = useState('');
  const apiKey = otherKey.trim() || session.key;
  // Arrow keys move between tabs (WAI-ARIA tabs pattern).
  const onKey = (e: KeyboardEvent) => {
    const i = TABS.findIndex((t) => t.id === tab);
    const next = e.key === 'ArrowRight' ? (i + 1) % TABS.length : e.key === 'ArrowLeft' ? (i + TABS.length - 1) % TABS.length : -1;
    if (next < 0) return;
    setTab(TABS[next].id);
    document.getElementById(`tab-${TABS[next].id}`)?.focus();
  };
  return (
    <>
      <div className="fields card">
        <label htmlFor="playground-key">Call with another API key (optional)</label>
        <input id="playground-key" type="password" autoComplete="off" value={otherKey} onChange={(e) => setOtherKey(e.target.value)} />
        <p className="hint">Blank: the key you signed in with.</p>
      </div>
      <div role="tablist" aria-label="Playground" className="tabs" onKeyDown={onKey}>
        {TABS.map((t) => (
          <button
            key={t.id}
            id={`tab-${t.id}`}
            type="button"
            role="tab"
            aria-selected={tab === t.id}
            aria-controls={`panel-${t.id}`}
            tabIndex={tab === t.id ? 0 : -1}
            onClick={() => setTab(t.id)}
          >
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`}>
        {tab === 'chat' && <ChatPanel apiKey={apiKey} />}
        {tab === 'image' && <ImagePanel apiKey={apiKey} />}
        {tab === 'speech' && <SpeechPanel apiKey={apiKey} />}
        {tab === 'transcribe' && <TranscribePanel apiKey={apiKey} />}
      </div>
    </>
  );
}
