import { Inject, Injectable } from '@nestjs/common';
import { Catalog } from '@svc/catalog';
import { AuthenticatedKey, CallerContext, CHAT, ChatCompletionParams } from '@svc/contracts';
import { Logger } from '@svc/logging';
import { RpcClient } from '@svc/messaging';
import { AdmissionService } from '../admission/admission.service';
import { estimateChatUsage } from '../admission/usage-estimate';
import { BillingRequests } from '../billing/billing-requests';
import { GATEWAY_LOGGER } from '../logger.token';
import { CATALOG } from '../models/models.tokens';

export const ENHANCE_TIMEOUT_MS = 30_000;
const MAX_REWRITE_TOKENS = 64;
const INSTRUCTION =
  'Rewrite the user\'s image prompt into one short, concrete description of the picture: subject, colours, background, style. Answer with the prompt only.';

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
    private readonly billing: BillingRequests,
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
    let admission;
    try {
      admission = await this.admission.admit({ requestId, key, model, worstCase: estimateChatUsage(params, model), ip });
    } catch (err) {
      this.logger.warn({ requestId, reason: err instanceof Error ? err.message : String(err) }, 'prompt enhancement refused; using the original prompt');
      return null;
    }
    try {
      const completion = await this.rpc.send(CHAT.COMPLETE, { caller: { ...caller, requestId }, params, billing: this.billing.reservationOf(requestId) }, { requestId, timeoutMs: ENHANCE_TIMEOUT_MS });
      await admission.settle({ promptTokens: completion.usage.prompt_tokens, completionTokens: completion.usage.completion_tokens });
      const text = (completion.choices[0]?.message.content ?? '').replace(/\s+/g, ' ').replace(/^["'\s]+|["'\s]+$/g, '');
      return text ? text.slice(0, maxChars) : null;
    } catch (err) {
      await admission.settle(null);
      this.logger.warn({ requestId, reason: err instanceof Error ? err.message : String(err) }, 'prompt enhancement failed; using the original prompt');
      return null;
    }
  }
}
