import { Inject, Injectable } from '@nestjs/common';
import { ModelDefinition } from '@svc/catalog';
import {
  ChatCompletionParams,
  ChatMessage,
  PromptBudgetReply,
  promptBudgetOf,
  SVC_PARAMETER_DEFAULTS,
  SvcParameters,
  TextCompletionParams,
} from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { CharactersService } from '../../characters/characters.service';
import { CHAT_CONFIG, ChatConfig } from '../../config';
import { ThinkStripper } from '../output/think-stripper';
import { withSystemPrompt } from './system-prompt';

/** Generated text on its way out: identity, or a think-block stripper. */
export interface OutputFilter {
  push(text: string): string;
  flush(): string;
}

const PASS_THROUGH: OutputFilter = { push: (text) => text, flush: () => '' };

/**
 * What `svc_parameters` change in a chat request, on every engine: the system prompt (the
 * deployment's, a character's persona, the caller's), the no-think instruction for reasoning
 * models, and the think-block filter on the output.
 */
@Injectable()
export class SvcParametersApplier {
  constructor(
    @Inject(CHAT_CONFIG) private readonly config: ChatConfig,
    private readonly characters: CharactersService,
  ) {}

  /** The effective parameters: the gateway sends them resolved; other callers get the defaults. */
  parametersOf(params: TextCompletionParams): SvcParameters {
    return params.svc_parameters ?? { ...SVC_PARAMETER_DEFAULTS };
  }

  async messages(model: ModelDefinition, params: ChatCompletionParams): Promise<ChatMessage[]> {
    const svc = this.parametersOf(params);
    const reasoning = model.capabilities.supportsReasoning === true;
    return withSystemPrompt(params.messages, {
      svcPrompt: this.config.SVC_SYSTEM_PROMPT,
      includeSvcPrompt: svc.include_svc_system_prompt,
      characterPrompt: svc.character_slug ? await this.persona(svc.character_slug) : undefined,
      instruction: svc.disable_thinking && reasoning ? this.config.SVC_NO_THINK_INSTRUCTION : undefined,
    });
  }

  /** What `messages` may add to any request, for the gateway's hold. */
  promptBudget(): PromptBudgetReply {
    return promptBudgetOf(this.config.SVC_SYSTEM_PROMPT, this.config.SVC_NO_THINK_INSTRUCTION);
  }

  outputFilter(params: TextCompletionParams): OutputFilter {
    const svc = this.parametersOf(params);
    return svc.strip_thinking_response || svc.disable_thinking ? new ThinkStripper() : PASS_THROUGH;
  }

  /** The whole text through a fresh filter (non-streaming answers). */
  filterText(params: TextCompletionParams, text: string): string {
    const filter = this.outputFilter(params);
    return filter.push(text) + filter.flush();
  }

  private async persona(slug: string): Promise<string> {
    let persona: Awaited<ReturnType<CharactersService['persona']>>;
    try {
      persona = await this.characters.persona(slug);
    } catch {
      throw new DomainError(ErrorCode.ServiceUnavailable, 'Characters are unavailable right now. Try again shortly.');
    }
    if (!persona) {
      const message = `Character "${slug}" does not exist. See GET /api/v1/characters.`;
      throw new DomainError(ErrorCode.Validation, message, { _errors: [], svc_parameters: { _errors: [], character_slug: { _errors: [message] } } });
    }
    return persona.systemPrompt;
  }
}
