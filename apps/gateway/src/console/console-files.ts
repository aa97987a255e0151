import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** One built file of the console, held in memory with the headers it is served with. */
export interface ConsoleFile {
  body: Buffer;
  contentType: string;
  cacheControl: string;
  etag: string;
}

/** Vite names every bundled file `assets/<name>-<hash>.<ext>`: their bytes never change under that name. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** index.html names the current hashed files: browsers revalidate it on every load (ETag, 304). */
export const REVALIDATE = 'no-cache';
/** Unhashed files next to index.html (an icon): a short cache. */
export const SHORT = 'public, max-age=3600';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};

/**
 * Reads the built console (`vite build` output) into memory once, keyed by its path under
 * /console/ ("index.html", "assets/index-3f2a.js"). Null when it was not built. A few hundred KB:
 * serving from memory keeps file system calls off the event loop the API shares.
 */
export function loadConsoleFiles(dir: string): Map<string, ConsoleFile> | null {
  if (!existsSync(path.join(dir, 'index.html'))) return null;
  const files = new Map<string, ConsoleFile>();
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    const name = path.relative(dir, full).split(path.sep).join('/');
    const contentType = TYPES[path.extname(name)];
    if (!contentType) continue;
    const body = readFileSync(full);
    const cacheControl = name === 'index.html' ? REVALIDATE : name.startsWith('assets/') ? IMMUTABLE : SHORT;
    files.set(name, { body, contentType, cacheControl, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` });
  }
  return files;
}
