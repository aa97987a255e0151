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

/** @type {{ llama: any, model: any, context: any, chatWrapper: any, GrammarState: any, bos: number | undefined } | undefined} */
let state;
/** Free sequences, each with the cache key of its last request (prompt_cache_key). */
/** @type {{ sequence: any, cacheKey: string | undefined, lastUsed: number }[]} */
const freeSequences = [];
/** Grammars by their JSON spec: compiling one costs more than a short generation. */
const grammars = new Map();
const GRAMMAR_CACHE_LIMIT = 32;
/** Held-back whitespace that ends a grammar-constrained answer (as node-llama-cpp's own JSON stop trigger). */
const GRAMMAR_END = '\n'.repeat(4);
/** Tokens the repeat penalties look back on (llama.cpp's usual window). */
const PENALTY_WINDOW = 64;
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
    case 'count':
      send({ type: 'counted', id: message.id, promptTokens: countPrompt(message) });
      break;
  }
});

async function init({ modelPath, contextSize, sequences, threads }) {
  const started = performance.now();
  try {
    const { getLlama, LlamaLogLevel, LlamaVocabularyType, resolveChatWrapper, LlamaGrammarEvaluationState } = await import('node-llama-cpp');
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
    for (let i = 0; i < sequences; i++) freeSequences.push({ sequence: context.getSequence(), cacheKey: undefined, lastUsed: 0 });
    const chatWrapper = resolveChatWrapper(model);
    state = { llama, model, context, chatWrapper, GrammarState: LlamaGrammarEvaluationState, bos: beginningToken(model, LlamaVocabularyType) };
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
  if (!state || freeSequences.length === 0) {
    send({ type: 'failed', id, code: 'busy', message: state ? 'no free sequence' : 'model not loaded' });
    return;
  }
  const job = { cancelled: false, credits: request.window, wake: undefined };
  jobs.set(id, job);
  let outcome;
  let slot;
  try {
    const prompt = tokenizeRequest(request);
    slot = takeSequence(prompt, request.cacheKey);
    outcome = await runJob(request, prompt, slot.sequence, job);
  } catch (err) {
    outcome = { type: 'failed', id, code: 'internal', message: errorMessage(err) };
  }
  // Free the sequence before reporting: the parent may send the next request as soon as it reads this.
  jobs.delete(id);
  if (slot) {
    slot.cacheKey = request.cacheKey;
    slot.lastUsed = performance.now();
    freeSequences.push(slot);
  }
  send(outcome);
}

/**
 * The free sequence to run on: the one last used with the same prompt_cache_key, else the one
 * whose cached tokens share the longest prefix with this prompt, else the least recently used.
 */
function takeSequence(prompt, cacheKey) {
  let best = 0;
  let bestScore = -1;
  for (let i = 0; i < freeSequences.length; i++) {
    const slot = freeSequences[i];
    const shared = slot.sequence.compareContextTokens(prompt).firstDifferentIndex;
    const keyed = cacheKey !== undefined && slot.cacheKey === cacheKey;
    // Key match first, then shared prefix, then age (older first: keep recent prefixes for their owners).
    const score = (keyed ? 1e12 : 0) + shared * 1e3 - Math.min(slot.lastUsed / 1e6, 999);
    if (score > bestScore) {
      best = i;
      bestScore = score;
    }
  }
  return freeSequences.splice(best, 1)[0];
}

/** Generates on `sequence`; returns the final `done` or `failed` message. */
async function runJob(request, prompt, sequence, job) {
  const { id } = request;
  const started = performance.now();
  const promptTokens = prompt.length;
  if (promptTokens >= sequence.contextSize) {
    const message = `The prompt is ${promptTokens} tokens, but the model's context holds ${sequence.contextSize}.`;
    return { type: 'failed', id, code: 'prompt_too_long', message, promptTokens, contextTokens: sequence.contextSize };
  }
  let grammarState;
  if (request.grammar) {
    try {
      grammarState = new state.GrammarState({ model: state.model, grammar: await grammarFor(request.grammar) });
    } catch (err) {
      return { type: 'failed', id, code: 'bad_grammar', message: errorMessage(err) };
    }
  }
  const reusedTokens = await reusePrefix(sequence, prompt);
  send({ type: 'started', id, promptTokens, reusedTokens });

  const budget = Math.min(request.maxTokens, sequence.contextSize - promptTokens);
  let reason = budget > 0 ? 'eos' : 'length';
  let completionTokens = 0;
  let pending = [];
  let pendingLogprobs = [];
  let recent = prompt.slice(-DETOKENIZE_CONTEXT);
  const generated = [];
  const sendText = async (text, logprobs) => {
    if (!text) return;
    await takeCredit(job);
    if (!job.cancelled) send({ type: 'text', id, text, completionTokens, ...(logprobs ? { logprobs } : {}) });
  };
  // Under a JSON grammar, whitespace is held back until more text follows: the grammar lets the
  // model pad the closed object with newlines, which are not part of the answer (and 4 end it).
  const held = { text: '', logprobs: [] };
  const emit = async (text, logprobs) => {
    if (!grammarState) return sendText(text, logprobs);
    const all = held.text + text;
    const cut = all.trimEnd().length;
    if (cut === 0) {
      held.text = all;
      if (logprobs) held.logprobs.push(...logprobs);
      return;
    }
    const lp = logprobs ? [...held.logprobs, ...logprobs] : undefined;
    held.text = all.slice(cut);
    held.logprobs = [];
    await sendText(all.slice(0, cut), lp);
  };
  if (budget > 0 && !job.cancelled) {
    const options = samplingOptions(request, prompt, generated, grammarState);
    const wantLogprobs = request.logprobs !== undefined;
    const tokens = prompt.slice(reusedTokens);
    const stream = wantLogprobs
      ? sequence.evaluateWithMetadata(tokens, { confidence: true, probabilities: request.logprobs.top > 0 }, options)
      : sequence.evaluate(tokens, options);
    for await (const item of stream) {
      const token = wantLogprobs ? item.token : item;
      completionTokens++;
      generated.push(token);
      pending.push(token);
      if (wantLogprobs) pendingLogprobs.push(logprobOf(token, item, request.logprobs.top));
      const text = state.model.detokenize(pending, false, recent);
      if (!(text.endsWith('\uFFFD') && pending.length < MAX_PENDING_TOKENS)) {
        recent = recent.concat(pending).slice(-DETOKENIZE_CONTEXT);
        pending = [];
        const lp = wantLogprobs ? pendingLogprobs : undefined;
        pendingLogprobs = [];
        await emit(text, lp);
      }
      if (job.cancelled) break;
      if (held.text.endsWith(GRAMMAR_END)) break;
      if (completionTokens >= budget) {
        reason = 'length';
        break;
      }
    }
  }
  if (job.cancelled) reason = 'cancelled';
  else if (pending.length > 0) await emit(state.model.detokenize(pending, false, recent), request.logprobs ? pendingLogprobs : undefined);
  return { type: 'done', id, reason, promptTokens, completionTokens, generateMs: Math.round(performance.now() - started) };
}

/** node-llama-cpp sampling options for a request; penalties only when asked for. */
function samplingOptions(request, prompt, generated, grammarState) {
  const options = { temperature: request.temperature, topP: request.topP, seed: request.seed };
  if (request.topK !== undefined) options.topK = request.topK;
  if (request.minP !== undefined) options.minP = request.minP;
  if (grammarState) options.grammarEvaluationState = grammarState;
  const { repetition, presence, frequency } = request.penalties ?? {};
  if (repetition !== undefined || presence !== undefined || frequency !== undefined) {
    // repetition_penalty (vLLM/transformers) looks at the prompt too; presence/frequency (OpenAI) at the output only.
    const base = repetition !== undefined ? prompt.slice(-PENALTY_WINDOW) : [];
    options.repeatPenalty = {
      punishTokens: () => base.concat(generated.slice(-PENALTY_WINDOW)).slice(-PENALTY_WINDOW),
      maxPunishTokens: PENALTY_WINDOW,
      penalty: repetition ?? 1,
      presencePenalty: presence ?? 0,
      frequencyPenalty: frequency ?? 0,
    };
  }
  return options;
}

/** OpenAI's logprob entry for one sampled token (natural log of the probability after sampling filters). */
function logprobOf(token, item, top) {
  const entry = (t, p) => {
    const text = state.model.detokenize([t], true);
    return { token: text, logprob: Math.log(Math.max(p, 1e-45)), bytes: [...Buffer.from(text, 'utf8')] };
  };
  const head = entry(token, item.confidence ?? 0);
  const alternatives = [];
  if (top > 0 && item.probabilities) {
    for (const [t, p] of item.probabilities) {
      alternatives.push(entry(t, p));
      if (alternatives.length >= top) break;
    }
  }
  return { ...head, top_logprobs: alternatives };
}

/**
 * Our own GBNF rules (number ranges and string formats with their lengths: apps/chat/src/chat/request/grammar-rules.ts, format-rules.ts)
 * travel as placeholder consts `svcgbnf-<hex of the rule>`; node-llama-cpp writes each as the
 * literal "\"svcgbnf-...\"", which is swapped here for the rule itself.
 */
async function withRules(schemaGrammar) {
  const text = schemaGrammar.grammar;
  if (!text.includes('svcgbnf-')) return schemaGrammar;
  const { LlamaText } = await import('node-llama-cpp');
  const grammar = text.replace(/"\\"svcgbnf-([0-9a-f]+)\\""/g, (_, hex) => `(${Buffer.from(hex, 'hex').toString('utf8')})`);
  return state.llama.createGrammar({ grammar, stopGenerationTriggers: [LlamaText(['\n'.repeat(4)])], trimWhitespaceSuffix: true });
}

async function grammarFor(spec) {
  const key = JSON.stringify(spec);
  let grammar = grammars.get(key);
  if (!grammar) {
    grammar =
      spec.kind === 'json_object' ? await state.llama.getGrammarFor('json') : await withRules(await state.llama.createGrammarForJsonSchema(spec.schema));
    if (grammars.size >= GRAMMAR_CACHE_LIMIT) grammars.delete(grammars.keys().next().value);
    grammars.set(key, grammar);
  }
  return grammar;
}

/** The prompt exactly as node-llama-cpp's LlamaChat would build it from the model's chat template. */
function tokenizePrompt(messages) {
  const history = messages.map((m) => (m.role === 'assistant' ? { type: 'model', response: [m.content] } : { type: m.role, text: m.content }));
  // A trailing assistant message is continued (prefill); otherwise open a new assistant turn.
  if (history.length === 0 || history[history.length - 1].type !== 'model') history.push({ type: 'model', response: [] });
  const { contextText } = state.chatWrapper.generateContextState({ chatHistory: history });
  return contextText.tokenize(state.model.tokenizer);
}

/**
 * A raw prompt (POST /completions) as it is, continued with no chat template: the begin-of-text
 * token where the model expects one, then the text with its special tokens parsed, as llama.cpp
 * server and vLLM tokenize a completions prompt.
 */
function tokenizeRaw(text) {
  const tokens = state.model.tokenize(text, true);
  return state.bos === undefined ? tokens : [state.bos, ...tokens];
}

/** A generate or count message's prompt: its raw text, or its messages under the chat template. */
function tokenizeRequest(message) {
  return typeof message.prompt === 'string' ? tokenizeRaw(message.prompt) : tokenizePrompt(message.messages);
}

/**
 * The token a raw prompt starts with, as node-llama-cpp's own LlamaCompletion decides it (after
 * llama.cpp's tokenizer): BOS where the vocabulary prepends one, none for RWKV and UGM (T5).
 */
function beginningToken(model, vocabularyTypes) {
  const type = model.vocabularyType;
  if (type === vocabularyTypes.rwkv || type === vocabularyTypes.ugm) return undefined;
  if (type === vocabularyTypes.wpm || model.tokens.shouldPrependBosToken) return model.tokens.bos ?? undefined;
  return undefined;
}

/** The prompt's tokens as `generate` would evaluate them (no sequence needed); null before the model loaded. */
function countPrompt(message) {
  if (!state) return null;
  try {
    return tokenizeRequest(message).length;
  } catch {
    return null;
  }
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
