import { Injectable } from '@nestjs/common';
import { CHAT, PromptBudgetReply } from '@svc/contracts';
import { RpcClient } from '@svc/messaging';

/** How long the chat service's answer is used before it is asked again (in the background). */
const FRESH_MS = 10_000;
const ASK_TIMEOUT_MS = 2_000;

/**
 * The chat service's prompt additions (its system prompt, the no-think instruction), cached so
 * that admission never waits on it after the first request. A change of SVC_SYSTEM_PROMPT reaches
 * the gateway within FRESH_MS; until then a longer prompt is charged at most its hold (billing caps
 * every charge at the hold and logs it).
 */
@Injectable()
export class PromptBudget {
  private value: PromptBudgetReply | undefined;
  private fetchedAt = 0;
  private pending: Promise<PromptBudgetReply> | undefined;

  constructor(private readonly rpc: RpcClient) {}

  async get(requestId: string): Promise<PromptBudgetReply> {
    if (this.value && Date.now() - this.fetchedAt < FRESH_MS) return this.value;
    const asking = this.ask(requestId);
    if (!this.value) return asking;
    asking.catch(() => undefined); // stale is fine meanwhile; the next request asks again
    return this.value;
  }

  private ask(requestId: string): Promise<PromptBudgetReply> {
    this.pending ??= this.rpc
      .send(CHAT.PROMPT_BUDGET, {}, { requestId, timeoutMs: ASK_TIMEOUT_MS })
      .then((reply) => {
        this.value = reply;
        this.fetchedAt = Date.now();
        return reply;
      })
      .finally(() => (this.pending = undefined));
    return this.pending;
  }
}
