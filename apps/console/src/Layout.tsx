import { useEffect, useRef, useState } from 'react';
import { Session } from './api/session';
import { CharactersPage } from './pages/CharactersPage';
import { CreditsPage } from './pages/CreditsPage';
import { JobsPage } from './pages/JobsPage';
import { KeysPage } from './pages/KeysPage';
import { LimitsPage } from './pages/LimitsPage';
import { ModelsPage } from './pages/ModelsPage';
import { PlaygroundPage } from './pages/playground/PlaygroundPage';
import { PageId, pageFromHash, pagesFor } from './routes';

interface Props {
  session: Session;
  onSignOut: () => void;
}

/** Navigation, the current page, and focus moved to its heading on each change (screen readers). */
export function Layout({ session, onSignOut }: Props) {
  const [page, setPage] = useState<PageId>(() => pageFromHash(location.hash, session.type));
  const heading = useRef<HTMLHeadingElement>(null);
  const first = useRef(true);
  useEffect(() => {
    const onHash = () => setPage(pageFromHash(location.hash, session.type));
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, [session.type]);
  useEffect(() => {
    if (first.current) first.current = false;
    else heading.current?.focus();
  }, [page]);
  const pages = pagesFor(session.type);
  const title = pages.find((p) => p.id === page)?.title ?? '';
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header>
        <span className="brand">Admin console</span>
        <nav aria-label="Pages">
          <ul>
            {pages.map((p) => (
              <li key={p.id}>
                <a href={`#/${p.id}`} aria-current={p.id === page ? 'page' : undefined}>
                  {p.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span className="who">{session.type === 'ADMIN' ? 'Admin key' : 'Inference key'}</span>
        <button type="button" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main id="main">
        <h1 tabIndex={-1} ref={heading}>
          {title}
        </h1>
        {page === 'keys' && <KeysPage session={session} />}
        {page === 'credits' && <CreditsPage session={session} />}
        {page === 'limits' && <LimitsPage session={session} />}
        {page === 'models' && <ModelsPage />}
        {page === 'characters' && <CharactersPage session={session} />}
        {page === 'playground' && <PlaygroundPage session={session} />}
        {page === 'jobs' && <JobsPage session={session} />}
      </main>
    </div>
  );
}
