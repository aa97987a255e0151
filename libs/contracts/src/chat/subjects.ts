import { RequestBilling } from '../billing/subjects';
import { CallerContext } from '../services';
import { StreamOpenReply, StreamOpenRequest } from '../stream/frames';
import { TextCompletionParams } from './chat-request';
import { ChatCompletion } from './chat-response';

/**
 * COMPLETE, STREAM and COUNT_PROMPT carry a chat request or, since raw completions, a raw prompt
 * (`params.prompt`, RawCompletionParams). That payload is one an earlier chat service refuses (its
 * schema requires `messages`: a 400) rather than misreads, and every chat request is as it was, so
 * the subjects kept their version (README.md, "Rules").
 */
export const CHAT = {
  COMPLETE: 'chat.cmd.complete.v1',
  /** Opens a token stream; frames follow on the caller's inbox (docs/streaming-protocol.md). */
  STREAM: 'chat.stream.complete.v1',
  /** What the service adds to every prompt, so the gateway's hold covers it (docs/billing.md). */
  PROMPT_BUDGET: 'chat.query.prompt-budget.v1',
  /**
   * The exact prompt tokens of a request, asked only when its byte-bounded hold does not fit the
   * credit left (docs/billing.md, "Exact at the margin").
   */
  COUNT_PROMPT: 'chat.query.count-prompt.v1',
} as const;

/**
 * Hard cap, in UTF-8 bytes, on the web search and scraping context the chat service injects into a
 * prompt (also bounded by the model's context). The gateway's hold counts it in full.
 */
export const WEB_CONTEXT_MAX_BYTES = 16 * 1024;

/** Bytes the chat service adds to a prompt, apart from a character's persona and web context. */
export interface PromptBudgetReply {
  /** The deployment's system prompt (SVC_SYSTEM_PROMPT), added unless `include_svc_system_prompt` is false. */
  systemPromptBytes: number;
  /** SVC_NO_THINK_INSTRUCTION, added for `disable_thinking` on reasoning models. */
  noThinkInstructionBytes: number;
  /** Separators between the merged system sections, and the web context's truncation marker. */
  separatorBytes: number;
}

export interface CompleteChatRequest {
  caller: CallerContext;
  params: TextCompletionParams;
  /** Present when the gateway reserved credit: the chat service settles it with exact counts. */
  billing?: RequestBilling;
  /**
   * The most web context (UTF-8 bytes) the prompt may carry, below WEB_CONTEXT_MAX_BYTES: set when
   * the request was admitted at the margin for the context its count found (CountPromptReply).
   */
  webContextMaxBytes?: number;
}
export type CompleteChatReply = ChatCompletion;

export interface StreamChatRequest extends CompleteChatRequest {
  stream: StreamOpenRequest;
}

export interface CountPromptRequest {
  caller: CallerContext;
  params: TextCompletionParams;
}

export interface CountPromptReply {
  /**
   * The prompt's tokens for the requested model as its engine counts them when it runs the
   * request: the service's system prompt, the persona, the tool descriptions and the chat template
   * included, and the web context when the request asks for one (searched for the count); a raw
   * prompt's tokens as it is run (its begin-of-text token included, no template). Null
   * when the model's engine cannot count exactly (an upstream without a tokenizer, or fallbacks).
   */
  promptTokens: number | null;
  /**
   * For a request with web search or scraping: the UTF-8 bytes of the context the count found
   * (0 when none). The gateway then holds for this much context instead of its cap, and sends it
   * as the request's `webContextMaxBytes`, so the run never injects more than was held.
   */
  webContextBytes?: number;
  /** Times the prompt may be evaluated: 2 where the embedded engine retries an answer that fails its schema check. */
  evaluations: number;
}

export interface ChatRpc {
  [CHAT.COMPLETE]: { req: CompleteChatRequest; res: CompleteChatReply };
  [CHAT.STREAM]: { req: StreamChatRequest; res: StreamOpenReply };
  [CHAT.PROMPT_BUDGET]: { req: Record<string, never>; res: PromptBudgetReply };
  [CHAT.COUNT_PROMPT]: { req: CountPromptRequest; res: CountPromptReply };
}
