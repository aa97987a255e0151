import { existsSync } from 'node:fs';
import path from 'node:path';

/** The repository root (where nx.json is), found from this file whether run from src or dist. */
function findRoot(start: string): string {
  let dir = start;
  while (!existsSync(path.join(dir, 'nx.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
  return dir;
}

export const REPO_ROOT = findRoot(__dirname);
