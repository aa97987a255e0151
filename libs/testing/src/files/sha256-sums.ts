import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Checks the files a `SHA256SUMS` file in `dir` lists (`<sha256> [*]<name>` lines, as sha256sum
 * writes them): `files` are the names listed, `mismatched` those whose contents differ now.
 */
export function checkSha256Sums(dir: string): { files: string[]; mismatched: string[] } {
  const lines = readFileSync(path.join(dir, 'SHA256SUMS'), 'utf8').split('\n').filter(Boolean);
  const files: string[] = [];
  const mismatched: string[] = [];
  for (const line of lines) {
    const [sha256, name] = line.split(/\s+\*?/);
    files.push(name);
    if (
      createHash('sha256')
        .update(readFileSync(path.join(dir, name)))
        .digest('hex') !== sha256
    )
      mismatched.push(name);
  }
  return { files, mismatched };
}
