// node-llama-cpp called directly, in the bench's own process: the baseline the platform is
// compared with. Same prompt construction (the model's chat template), sampling and thread count
// as the platform's worker (apps/chat/src/engines/embedded/llama-worker.mjs).
import { performance } from 'node:perf_hooks';

export async function directRun({ modelPath, contextSize, threads, system, prompts, maxTokens, seed, temperature }) {
  const { getLlama, resolveChatWrapper, LlamaLogLevel } = await import('node-llama-cpp');
  const llama = await getLlama({ gpu: false, build: 'never', maxThreads: threads, logLevel: LlamaLogLevel.error });
  const model = await llama.loadModel({ modelPath });
  const context = await model.createContext({ contextSize, sequences: 1, threads });
  const sequence = context.getSequence();
  const wrapper = resolveChatWrapper(model);
  const runs = [];
  try {
    for (const prompt of prompts) {
      const history = [
        { type: 'system', text: system },
        { type: 'user', text: prompt },
        { type: 'model', response: [] },
      ];
      const tokens = wrapper.generateContextState({ chatHistory: history }).contextText.tokenize(model.tokenizer);
      await sequence.clearHistory();
      const started = performance.now();
      let generated = 0;
      const budget = Math.min(maxTokens, contextSize - tokens.length);
      for await (const token of sequence.evaluate(tokens, { temperature, topP: 1, seed })) {
        generated++;
        model.detokenize([token]);
        if (generated >= budget) break;
      }
      runs.push({ promptTokens: tokens.length, completionTokens: generated, ms: performance.now() - started });
    }
  } finally {
    await context.dispose();
    await model.dispose();
  }
  return runs;
}
