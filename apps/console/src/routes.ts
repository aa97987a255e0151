import { KeyType } from './api/session';

/** The console's pages, addressed by the URL's hash (#/keys): the gateway serves one index.html. */
export const PAGES = [
  { id: 'keys', title: 'API keys', admin: true },
  { id: 'credits', title: 'Credits and usage', admin: true },
  { id: 'limits', title: 'Limits', admin: false },
  { id: 'models', title: 'Models', admin: true },
  { id: 'characters', title: 'Characters', admin: true },
  { id: 'playground', title: 'Playground', admin: false },
  { id: 'jobs', title: 'Jobs', admin: true },
] as const;

export type PageId = (typeof PAGES)[number]['id'];

/**
 * What a key type sees: an INFERENCE key the playground and its own limits (issue 22); it cannot
 * manage keys or read billing (the API answers 403). The API stays the authority either way.
 */
export function pagesFor(type: KeyType) {
  return PAGES.filter((p) => type === 'ADMIN' || !p.admin);
}

export function pageFromHash(hash: string, type: KeyType): PageId {
  const id = hash.replace(/^#\/?/, '');
  const allowed = pagesFor(type);
  return (allowed.find((p) => p.id === id) ?? allowed[0]).id;
}
