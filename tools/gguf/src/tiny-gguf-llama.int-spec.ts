import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { writeTinyGguf } from './write-tiny-gguf';

// node-llama-cpp is ESM-only, so the check runs in its own Node process.
describe('tiny GGUF in node-llama-cpp', () => {
  let dir: string;
  beforeAll(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tiny-gguf-llama-'))));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('loads, round-trips text through the tokenizer and generates', () => {
    const modelPath = path.join(dir, 'svc-tiny-random.gguf');
    writeTinyGguf(modelPath);
    const out = execFileSync(process.execPath, [path.join(__dirname, 'verify-with-llama.mjs'), modelPath], { encoding: 'utf8' });
    const report = JSON.parse(out);
    expect(report).toMatchObject({
      architecture: 'llama',
      name: 'svc-tiny-random',
      vocabularyType: 'spm',
      chatWrapper: 'ChatML',
      imEndIsEog: true,
      controlTokensParsed: true,
      trainContextSize: 2048,
      greedyTokens: 64,
    });
    for (const sample of report.roundTrips) expect(sample).toMatchObject({ ok: true });
  });
});
