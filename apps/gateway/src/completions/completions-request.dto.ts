import { z } from 'zod';
import { withinInlineBudget } from '@svc/contracts';
import { chatRequestSchema } from '../chat/chat-request.dto';

// POST /completions, OpenAI's legacy text completions API (CreateCompletionRequest). The sampling
// fields are chat's own validators; completions-request.mapper.ts turns the body into the raw
// completion the chat service runs (the prompt continued as it is, no chat template).

/** OpenAI's default `max_tokens` for this API (chat's is the model's cap). */
export const DEFAULT_MAX_TOKENS = 16;

const chat = chatRequestSchema.shape;
const tokenIds = z.array(z.number().int());

/** The four forms OpenAI documents; only one text prompt runs (the rest is refused below, naming why). */
const prompt = z.union([z.string(), z.array(z.string()), tokenIds, z.array(tokenIds)], {
  message: 'prompt must be a string (or an array holding one string)',
});

/** Where one prompt is wanted, OpenAI allows several: each gets its own request here. */
function checkPrompt(value: z.infer<typeof prompt>, ctx: z.RefinementCtx): void {
  const issue = (message: string) => ctx.addIssue({ code: 'custom', path: ['prompt'], message });
  if (typeof value === 'string') {
    if (value.length === 0) issue('prompt must not be empty');
    return;
  }
  if (value.length === 0) return issue('prompt must not be empty');
  if (value.some((p) => typeof p !== 'string')) return issue('prompt as token ids is not supported: send the text');
  if (value.length > 1) return issue('one prompt per request: send each prompt as its own request (n gives several completions of one prompt)');
  if (value[0] === '') issue('prompt must not be empty');
}

/** POST /completions. Undocumented fields go on to upstream engines, as on chat (docs/completions.md). */
export const completionsRequestSchema = z
  .looseObject({
    model: chat.model,
    prompt,
    max_tokens: chat.max_tokens,
    temperature: chat.temperature,
    top_p: chat.top_p,
    n: chat.n,
    stop: chat.stop,
    seed: chat.seed,
    stream: chat.stream,
    stream_options: chat.stream_options,
    presence_penalty: chat.presence_penalty,
    frequency_penalty: chat.frequency_penalty,
    repetition_penalty: chat.repetition_penalty,
    top_k: chat.top_k,
    min_p: chat.min_p,
    logprobs: z.number().int().min(0).max(5).nullish(),
    echo: z.boolean().nullish(),
    suffix: z
      .string()
      .nullish()
      .refine((v) => !v, {
        message: 'suffix (insertion) is not supported: no engine here fills in text between a prompt and a suffix; send the text before it as the prompt',
      }),
    best_of: z.number().int().min(1).max(20).nullish(),
    fallbacks: chat.fallbacks,
    svc_parameters: chat.svc_parameters,
    prompt_cache_key: chat.prompt_cache_key,
    user: chat.user,
  })
  .superRefine((body, ctx) => {
    checkPrompt(body.prompt, ctx);
    if (body.echo === true && body.logprobs != null)
      ctx.addIssue({
        code: 'custom',
        path: ['echo'],
        message: "echo: true with logprobs is not supported: the prompt's own log probabilities are not computed; ask for logprobs without echo",
      });
    const n = body.n ?? 1;
    if (body.best_of != null && body.best_of > 1 && body.best_of !== n)
      ctx.addIssue({
        code: 'custom',
        path: ['best_of'],
        message: `best_of other than 1 or n is not supported: no answer is ranked; ask for n = ${body.best_of} choices instead`,
      });
  })
  .superRefine(withinInlineBudget());

export type CompletionsRequestBody = z.infer<typeof completionsRequestSchema>;
