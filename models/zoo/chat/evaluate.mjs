// Samples the exported GGUF through node-llama-cpp (the runtime the platform serves it with):
// answers to fixed chat prompts, their share of dictionary words (/usr/share/dict/words), and
// generation speed on one thread. usage: node models/zoo/chat/evaluate.mjs <model.gguf>
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { getLlama, LlamaChatSession, LlamaLogLevel } from 'node-llama-cpp';

const PROMPTS = [
  ['You are a helpful assistant.', 'What is a lantern?'],
  [undefined, 'Tell me about the sea.'],
  ['Answer briefly.', 'Give me a verse about mercy.'],
  [undefined, 'Tell me something wise.'],
  [undefined, 'What does it mean to wander?'],
  ['You are a friendly assistant who answers in plain English.', 'Hello! Who are you?'],
  [undefined, 'What is a computer?'],
  ['You are a concise assistant.', 'What should I do today?'],
  [undefined, 'Define happiness.'],
  [undefined, 'What is a river?'],
];
const dict = new Set(fs.readFileSync('/usr/share/dict/words', 'utf8').split('\n').map((w) => w.toLowerCase()));
const known = (w) => dict.has(w) || dict.has(w.replace(/'s$/, '')) || dict.has(w.replace(/(eth|est)$/, ''));

const llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error });
const model = await llama.loadModel({ modelPath: process.argv[2] });
const context = await model.createContext({ contextSize: 256, threads: 1 });
const samples = [];
let words = 0;
let inDict = 0;
let tokens = 0;
let ms = 0;
for (const [i, [system, user]] of PROMPTS.entries()) {
  const sequence = context.getSequence();
  const session = new LlamaChatSession({ contextSequence: sequence, systemPrompt: system });
  const started = performance.now();
  let n = 0;
  const answer = await session.prompt(user, { maxTokens: 80, temperature: 0.7, topP: 0.9, seed: 100 + i, onToken: (t) => (n += t.length) });
  ms += performance.now() - started;
  tokens += n;
  const found = answer.toLowerCase().match(/[a-z]+(?:'[a-z]+)?/g) ?? [];
  words += found.length;
  inDict += found.filter(known).length;
  samples.push({ system, user, answer });
  sequence.dispose();
}
process.stdout.write(
  JSON.stringify({ dictionaryWordShare: +(inDict / words).toFixed(3), words, tokensPerSecondOneThread: +((tokens / ms) * 1000).toFixed(0), samples }, null, 1) + '\n',
);
await context.dispose();
await model.dispose();
