// Loads a GGUF with node-llama-cpp (CPU prebuilt, nothing downloaded) and prints a JSON report:
// tokenizer round-trips, special tokens, chat wrapper, load time and greedy tokens/s.
// usage: node tools/gguf/src/verify-with-llama.mjs models/svc-tiny-random.gguf
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { getLlama, LlamaLogLevel, readGgufFileInfo, resolveChatWrapper } from 'node-llama-cpp';

const SAMPLES = [
  'Hello world',
  ' leading space and  two  spaces',
  'line one\nline two\ttab',
  'café naïve — “quotes” ü ß',
  '日本語のテキスト',
  'emoji 🙂🚀 done',
  'The library would have three floors.',
];

const modelPath = process.argv[2];
if (!modelPath) {
  process.stderr.write('usage: verify-with-llama.mjs <model.gguf>\n');
  process.exit(2);
}
const info = await readGgufFileInfo(modelPath);
const llama = await getLlama({ gpu: false, build: 'never', logLevel: LlamaLogLevel.error });
const started = performance.now();
const model = await llama.loadModel({ modelPath });
const loadMs = performance.now() - started;

const roundTrips = SAMPLES.map((text) => {
  const tokens = model.tokenize(text);
  return { text, tokens: tokens.length, ok: model.detokenize(tokens) === text };
});
const chatml = model.tokenize('<|im_start|>user\nHi<|im_end|>', true);
const controlTokensParsed = chatml.length > 2 && model.detokenize([chatml[0]], true) === '<|im_start|>' && chatml[chatml.length - 1] === model.tokens.eos;
const wrapper = resolveChatWrapper(model);

const context = await model.createContext({ contextSize: 512, threads: 1 });
const sequence = context.getSequence();
const generated = [];
const genStarted = performance.now();
for await (const token of sequence.evaluate(model.tokenize('The river', true))) {
  generated.push(token);
  if (generated.length >= 64) break;
}
const tokensPerSecond = generated.length / ((performance.now() - genStarted) / 1000);

process.stdout.write(
  JSON.stringify({
    architecture: info.metadata.general.architecture,
    name: info.metadata.general.name,
    loadMs: Math.round(loadMs),
    vocabularyType: model.vocabularyType,
    bos: model.tokens.bos,
    eos: model.tokens.eos,
    imEndIsEog: model.isEogToken(chatml[chatml.length - 1]),
    controlTokensParsed,
    chatWrapper: wrapper.wrapperName,
    trainContextSize: model.trainContextSize,
    roundTrips,
    greedyTokens: generated.length,
    tokensPerSecond: Math.round(tokensPerSecond),
  }) + '\n',
);
await context.dispose();
await model.dispose();
