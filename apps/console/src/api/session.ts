/** The signed-in key. sessionStorage only: gone when the tab closes, never a cookie, never in a URL. */
export type KeyType = 'ADMIN' | 'INFERENCE';

export interface Session {
  key: string;
  type: KeyType;
}

const STORAGE_KEY = 'svc-console-session';

export function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    if (!raw) return null;
    const parsed = JSON.parse(raw) as Partial<Session>;
    return typeof parsed.key === 'string' && (parsed.type === 'ADMIN' || parsed.type === 'INFERENCE') ? { key: parsed.key, type: parsed.type } : null;
  } catch {
    return null;
  }
}

export function saveSession(session: Session): void {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
}

export function clearSession(): void {
  sessionStorage.removeItem(STORAGE_KEY);
}
