import { z } from 'zod';

/** Allowed web origins: none, any (`*`), or a set of exact origins. */
export type OriginList = { kind: 'none' } | { kind: 'any' } | { kind: 'some'; origins: ReadonlySet<string> };

/** `https://app.example.com` or `http://localhost:5173`: scheme, host and port only, as a browser sends `Origin`. */
function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.origin === value;
  } catch {
    return false;
  }
}

/**
 * A comma-separated list of web origins (CORS): empty for none (the default), `*` for any, else
 * each exactly as a browser sends it (`https://app.example.com`, no path or trailing slash).
 */
export const originList = z
  .string()
  .default('')
  .transform((raw, ctx): OriginList => {
    const items = raw
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (items.length === 0) return { kind: 'none' };
    if (items.length === 1 && items[0] === '*') return { kind: 'any' };
    const bad = items.filter((o) => !isOrigin(o));
    if (bad.length > 0) {
      ctx.addIssue({ code: 'custom', message: `not an origin (scheme://host[:port], no path; or * alone): ${bad.join(', ')}` });
      return z.NEVER;
    }
    return { kind: 'some', origins: new Set(items) };
  });
