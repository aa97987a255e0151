import { useEffect, useState } from 'react';
import { clearSession, loadSession, Session } from './api/session';
import { Layout } from './Layout';
import { SignIn } from './pages/SignIn';

export function App() {
  const [session, setSession] = useState<Session | null>(() => loadSession());
  useEffect(() => {
    document.title = session ? 'Admin console' : 'Sign in · Admin console';
  }, [session]);
  if (!session) return <SignIn onSignedIn={setSession} />;
  return (
    <Layout
      session={session}
      onSignOut={() => {
        clearSession();
        setSession(null);
      }}
    />
  );
}
