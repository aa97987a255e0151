// Child process that hosts node-llama-cpp for EmbeddedLlamaEngine. node-llama-cpp is ESM-only
// (top-level await), so it cannot be required from the CommonJS service; and a native crash here
// only kills this process. Messages follow ./ipc-messages.ts. Never log prompts or output.
import { performance } from 'node:perf_hooks';
import process from 'node:process';

/** Partial UTF-8 from byte-fallback tokens shows up as U+FFFD; wait this many tokens for the rest. */
const MAX_PENDING_TOKENS = 4;
/** Previous tokens passed to detokenize so SentencePiece spaces come out right at piece starts. */
const DETOKENIZE_CONTEXT = 16;
/** Cap for the default context when none is configured: 'auto' could reserve the full trained size. */
const DEFAULT_CONTEXT_CAP = 4096;

/** @type {{ model: any, context: any, chatWrapper: any } | undefined} */
let state;
/** @type {any[]} */
const freeSequences = [];
/** @type {Map<number, { cancelled: boolean, credits: number, wake: (() => void) | undefined }>} */
const jobs = new Map();

function send(message) {
  if (process.connected) process.send(message);
}

process.on('disconnect', () => process.exit(0));

process.on('message', (message) => {
  switch (message.type) {
    case 'init':
      void init(message);
      break;
    case 'generate':
      void generate(message);
      break;
    case 'credit': {
      const job = jobs.get(message.id);
      if (job) {
        job.credits += message.pieces;
        wake(job);
      }
      break;
    }
    case 'cancel': {
      const job = jobs.get(message.id);
      if (job) {
        job.cancelled = true;
        wake(job);
      }
      break;
    }
    case 'shutdown':
      void shutdown();
      break;
  }
});

async function init({ modelPath, contextSize, sequences, threads }) {
  const started = performance.now();
  try {
    const { getLlama, LlamaLogLevel, resolveChatWrapper } = await import('node-llama-cpp');
    const llama = await getLlama({
      gpu: false,
      build: 'never',
      maxThreads: threads,
      logLevel: LlamaLogLevel.warn,
      logger: (level, text) => send({ type: 'log', level: String(level), message: String(text).trim().slice(0, 500) }),
    });
    const model = await llama.loadModel({ modelPath });
    const context = await model.createContext({
      contextSize: contextSize ?? Math.min(model.trainContextSize, DEFAULT_CONTEXT_CAP),
      sequences,
      threads,
    });
    for (let i = 0; i < sequences; i++) freeSequences.push(context.getSequence());
    const chatWrapper = resolveChatWrapper(model);
    state = { model, context, chatWrapper };
    send({
      type: 'ready',
      loadMs: Math.round(performance.now() - started),
      contextSize: context.contextSize,
      trainContextSize: model.trainContextSize,
      sequences,
      threads: context.currentThreads,
      chatWrapper: chatWrapper.wrapperName,
    });
  } catch (err) {
    send({ type: 'fatal', message: errorMessage(err) });
    setTimeout(() => process.exit(1), 50);
  }
}

async function generate(request) {
  const { id } = request;
  const sequence = freeSequences.pop();
  if (!state || !sequence) {
    send({ type: 'failed', id, code: 'busy', message: state ? 'no free sequence' : 'model not loaded' });
    return;
  }
  const job = { cancelled: false, credits: request.window, wake: undefined };
  jobs.set(id, job);
  let outcome;
  try {
    outcome = await runJob(request, sequence, job);
  } catch (err) {
    outcome = { type: 'failed', id, code: 'internal', message: errorMessage(err) };
  }
  // Free the sequence before reporting: the parent may send the next request as soon as it reads this.
  jobs.delete(id);
  freeSequences.push(sequence);
  send(outcome);
}

/** Generates on `sequence`; returns the final `done` or `failed` message. */
async function runJob(request, sequence, job) {
  const { id } = request;
  const started = performance.now();
  const prompt = tokenizePrompt(request.messages);
  const promptTokens = prompt.length;
  if (promptTokens >= sequence.contextSize) {
    const message = `The prompt is ${promptTokens} tokens, but the model's context holds ${sequence.contextSize}.`;
    return { type: 'failed', id, code: 'prompt_too_long', message };
  }
  const reusedTokens = await reusePrefix(sequence, prompt);
  send({ type: 'started', id, promptTokens, reusedTokens });

  const budget = Math.min(request.maxTokens, sequence.contextSize - promptTokens);
  let reason = budget > 0 ? 'eos' : 'length';
  let completionTokens = 0;
  let pending = [];
  let recent = prompt.slice(-DETOKENIZE_CONTEXT);
  const emit = async (text) => {
    if (!text) return;
    await takeCredit(job);
    if (!job.cancelled) send({ type: 'text', id, text, completionTokens });
  };
  if (budget > 0 && !job.cancelled) {
    const options = { temperature: request.temperature, topP: request.topP, seed: request.seed };
    for await (const token of sequence.evaluate(prompt.slice(reusedTokens), options)) {
      completionTokens++;
      pending.push(token);
      const text = state.model.detokenize(pending, false, recent);
      if (!(text.endsWith('\uFFFD') && pending.length < MAX_PENDING_TOKENS)) {
        recent = recent.concat(pending).slice(-DETOKENIZE_CONTEXT);
        pending = [];
        await emit(text);
      }
      if (job.cancelled) break;
      if (completionTokens >= budget) {
        reason = 'length';
        break;
      }
    }
  }
  if (job.cancelled) reason = 'cancelled';
  else if (pending.length > 0) await emit(state.model.detokenize(pending, false, recent));
  return { type: 'done', id, reason, promptTokens, completionTokens, generateMs: Math.round(performance.now() - started) };
}

/** The prompt exactly as node-llama-cpp's LlamaChat would build it from the model's chat template. */
function tokenizePrompt(messages) {
  const history = messages.map((m) =>
    m.role === 'assistant' ? { type: 'model', response: [m.content] } : { type: m.role, text: m.content },
  );
  // A trailing assistant message is continued (prefill); otherwise open a new assistant turn.
  if (history.length === 0 || history[history.length - 1].type !== 'model') history.push({ type: 'model', response: [] });
  const { contextText } = state.chatWrapper.generateContextState({ chatHistory: history });
  return contextText.tokenize(state.model.tokenizer);
}

/** Keeps the sequence's cached prefix shared with this prompt (multi-turn chats re-send history). */
async function reusePrefix(sequence, prompt) {
  const { firstDifferentIndex } = sequence.compareContextTokens(prompt);
  // At least one prompt token must be evaluated to get logits for the first completion token.
  const keep = Math.min(firstDifferentIndex, prompt.length - 1);
  if (keep < sequence.nextTokenIndex) await sequence.eraseContextTokenRanges([{ start: keep, end: sequence.nextTokenIndex }]);
  return keep;
}

async function takeCredit(job) {
  while (job.credits <= 0 && !job.cancelled) await new Promise((resolve) => (job.wake = resolve));
  job.credits--;
}

function wake(job) {
  const resolve = job.wake;
  job.wake = undefined;
  resolve?.();
}

async function shutdown() {
  for (const job of jobs.values()) {
    job.cancelled = true;
    wake(job);
  }
  try {
    await state?.context.dispose();
    await state?.model.dispose();
  } finally {
    process.exit(0);
  }
}

function errorMessage(err) {
  return err instanceof Error ? err.message : String(err);
}
