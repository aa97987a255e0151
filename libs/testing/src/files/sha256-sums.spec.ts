import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { checkSha256Sums } from './sha256-sums';

describe('checkSha256Sums', () => {
  it('lists the files of SHA256SUMS (text and binary mode lines) and those that changed', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'sha256sums-'));
    try {
      const sha = (text: string) => createHash('sha256').update(text).digest('hex');
      writeFileSync(path.join(dir, 'a.bin'), 'model a');
      writeFileSync(path.join(dir, 'b.json'), 'sidecar b, edited');
      writeFileSync(path.join(dir, 'SHA256SUMS'), `${sha('model a')} *a.bin\n${sha('sidecar b')}  b.json\n`);
      expect(checkSha256Sums(dir)).toEqual({ files: ['a.bin', 'b.json'], mismatched: ['b.json'] });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
