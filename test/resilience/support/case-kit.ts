import fc from 'fast-check';
import { Case } from './answer-checks';
import { Route } from './routes';

/** Builds the cases of one category for a route; `key` is the ADMIN key every case carries. */
export type CaseFactory = (route: Route, key: string) => fc.Arbitrary<Case> | null;

/** Strings that have broken parsers, databases and logs before: NUL, line breaks, lone surrogates, injections. */
export const NASTY = [
  '\u0000',
  '\r\n',
  '\r',
  '\n',
  '\u2028',
  '\u0085',
  '\ud800',
  '\udfff',
  '%00',
  '%0d%0a',
  '\\',
  '"',
  "'; --",
  '${x}',
  '{{x}}',
  '\ufeff',
  '\u202e',
];

export const auth = (key: string) => ({ authorization: `Bearer ${key}` });
/** Percent-encodes UTF-8 bytes (a lone surrogate, which encodeURIComponent refuses, becomes U+FFFD as a client would send it). */
export const encode = (text: string) =>
  [...Buffer.from(text)]
    .map((b) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');
export const bodyRoutes = (route: Route) => route.method === 'POST' || route.method === 'PATCH';
