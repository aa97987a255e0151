import { Inject, Injectable } from '@nestjs/common';
import { Catalog } from '@svc/catalog';
import { AuthenticatedKey, CallerContext, CHAT, ChatCompletionParams } from '@svc/contracts';
import { Logger } from '@svc/logging';
import { RpcClient } from '@svc/messaging';
import { AdmissionService } from '../admission/admission.service';
import { chatWorstCase } from '../chat/chat-worst-case';
import { PromptBudget } from '../chat/prompt-budget';
import { GATEWAY_LOGGER } from '../logger.token';
import { CATALOG } from '../models/models.tokens';
import { errorMessage } from '@svc/errors';

export const ENHANCE_TIMEOUT_MS = 30_000;
const MAX_REWRITE_TOKENS = 64;
const INSTRUCTION =
  "Rewrite the user's image prompt into one short, concrete description of the picture: subject, colours, background, style. Answer with the prompt only.";

/**
 * `enhance_prompt`: the default text model rewrites the prompt through the chat service. The rewrite
 * is its own admitted and billed text request (request id `<id>.enhance`); when it fails or is
 * refused, the image is made from the original prompt and nothing is charged for the rewrite.
 */
@Injectable()
export class PromptEnhancer {
  constructor(
    private readonly rpc: RpcClient,
    private readonly admission: AdmissionService,
    private readonly promptBudget: PromptBudget,
    @Inject(CATALOG) private readonly catalog: Catalog,
    @Inject(GATEWAY_LOGGER) private readonly logger: Logger,
  ) {}

  /** The rewritten prompt (at most `maxChars`), or null when there is none. */
  async enhance(caller: CallerContext, key: AuthenticatedKey, ip: string, prompt: string, maxChars: number): Promise<string | null> {
    const model = this.catalog.resolve('default', 'text');
    if (!model) return null;
    const requestId = `${caller.requestId}.enhance`;
    const params: ChatCompletionParams = {
      model: model.id,
      messages: [
        { role: 'system', content: INSTRUCTION },
        { role: 'user', content: prompt },
      ],
      max_tokens: Math.min(MAX_REWRITE_TOKENS, model.maxCompletionTokens ?? MAX_REWRITE_TOKENS),
      temperature: 0.7,
    };
    try {
      const worstCase = chatWorstCase(params, model, { budget: await this.promptBudget.get(requestId), personaBytes: 0 });
      return await this.admission.run({ requestId, key, model, worstCase, ip }, null, async ({ billing }) => {
        const completion = await this.rpc.send(
          CHAT.COMPLETE,
          { caller: { ...caller, requestId }, params, billing },
          { requestId, timeoutMs: ENHANCE_TIMEOUT_MS },
        );
        const text = (completion.choices[0]?.message.content ?? '').replace(/\s+/g, ' ').replace(/^["'\s]+|["'\s]+$/g, '');
        return {
          result: text ? text.slice(0, maxChars) : null,
          usage: { promptTokens: completion.usage.prompt_tokens, completionTokens: completion.usage.completion_tokens },
        };
      });
    } catch (err) {
      // Refused (limits, credit) or failed: nothing is charged for the rewrite.
      this.logger.warn({ requestId, reason: errorMessage(err) }, 'prompt enhancement failed or was refused; using the original prompt');
      return null;
    }
  }
}
