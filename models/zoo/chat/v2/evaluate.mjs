// Evaluates a chat GGUF through the engine that serves it (EmbeddedLlamaEngine from dist/, so run
// `npm run build` first, and run with `node -r ./tools/register-paths.js`; the JSON check uses the engine's response_format grammar):
//   relevance  held-out "What is X?" questions (packages never seen in training): the share of
//              answers with at least one content word of X's real description (greedy, 64 tokens);
//              strictShare: not counting words that are parts of X's name
//   json       a two-field schema at max_tokens 64, 100 seeded tries (temperature 0.8): share that parse
//              with both fields as strings
//   long       a ~1,500-token conversation is accepted and answered (when the context allows it)
//   general    (with --general eval/general-questions.jsonl) short general questions the training
//              text covers but never asks (Debian Reference, man pages, Python docs, dictionaries):
//              the share of answers (greedy, 64 tokens) holding one of the expected words, not
//              counting a word the question itself contains
// usage: node -r ./tools/register-paths.js models/zoo/chat/v2/evaluate.mjs --model <gguf> --questions <heldout_questions.jsonl>
//        [--context 2048] [--n 200] [--json-tries 100] [--general <general-questions.jsonl>]
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

const require = createRequire(import.meta.url);
const { AbortController } = globalThis;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const { EmbeddedLlamaEngine } = require(path.join(root, 'dist/apps/chat/src/engines/embedded/embedded-llama.engine.js'));
const { contentWords, relevant, relevantStrict, longConversation, JSON_SCHEMA, jsonMessages, parsesWithStrings } = await import('./eval-measures.mjs');

const args = process.argv.slice(2);
const arg = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i === -1 ? dflt : args[i + 1];
};
const modelPath = arg('model');
const contextSize = Number(arg('context', '2048'));
const n = Number(arg('n', '200'));
const tries = Number(arg('json-tries', '100'));
const questions = fs.readFileSync(arg('questions'), 'utf8').trim().split('\n').map((l) => JSON.parse(l)).slice(0, n);
const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const engine = new EmbeddedLlamaEngine({ modelPath, contextSize, maxParallel: 1, maxQueue: 4, logger: quiet });
await engine.ready();
const signal = new AbortController().signal;
let tokens = 0;
let ms = 0;
const gen = async (req) => {
  const t = performance.now();
  const r = await engine.generate({ ...req, signal });
  ms += performance.now() - t;
  tokens += r.completionTokens;
  return r;
};

const relevance = [];
for (const q of questions) {
  const r = await gen({ messages: [{ role: 'user', content: q.question }], maxTokens: 64, temperature: 0 });
  relevance.push({ name: q.name, answer: r.text, relevant: relevant(r.text, q), strict: relevantStrict(r.text, q) });
}
const generalFile = arg('general');
const general = [];
for (const q of generalFile ? fs.readFileSync(generalFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l)) : []) {
  const r = await gen({ messages: [{ role: 'user', content: q.question }], maxTokens: 64, temperature: 0 });
  const asked = q.question.toLowerCase();
  const answer = r.text.toLowerCase();
  general.push({ question: q.question, answer: r.text, hit: q.expect.some((w) => !asked.includes(w) && answer.includes(w)) });
}
const json = [];
for (let i = 0; i < tries; i++) {
  const q = questions[i % questions.length];
  const r = await gen({ messages: jsonMessages(q.name), maxTokens: 64, temperature: 0.8, seed: i, output: { kind: 'json_schema', schema: JSON_SCHEMA } });
  json.push({ text: r.text, parses: parsesWithStrings(r.text), finishReason: r.finishReason });
}
let long = null;
if (contextSize >= 2048) {
  const messages = longConversation(questions, 1500);
  try {
    const r = await gen({ messages, maxTokens: 64, temperature: 0 });
    long = { accepted: true, promptTokens: r.promptTokens, answer: r.text };
  } catch (e) {
    long = { accepted: false, error: String(e?.message ?? e) };
  }
}
await engine.close();
const share = (xs, f) => (xs.length ? +(xs.filter(f).length / xs.length).toFixed(3) : null);
process.stdout.write(
  JSON.stringify(
    {
      model: path.basename(modelPath),
      contextSize,
      relevance: { questions: relevance.length, share: share(relevance, (x) => x.relevant), strictShare: share(relevance, (x) => x.strict) },
      json: { tries: json.length, parses: share(json, (x) => x.parses) },
      ...(general.length ? { general: { questions: general.length, share: share(general, (x) => x.hit), answers: general } } : {}),
      long,
      tokensPerSecond: +((tokens / ms) * 1000).toFixed(0),
      relevanceSamples: relevance.slice(0, 12),
      jsonSamples: json.slice(0, 6),
      jsonFailures: json.filter((x) => !x.parses).slice(0, 6),
      contentWordsOfFirst: [...contentWords(questions[0].short)],
    },
    null,
    1,
  ) + '\n',
);
