import { Inject, Injectable } from '@nestjs/common';
import { Catalog, ModelDefinition } from '@svc/catalog';
import { CHARACTERS, SvcParameters } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { RpcClient } from '@svc/messaging';
import { CATALOG } from '../models/models.tokens';
import { assertSvcFeaturesAvailable, mergeSvcParameters, parseModelSuffix } from './svc-parameters';
import { SvcParametersInput } from './svc-parameters.schema';

/** The `default` trait: a request naming it with a character gets the character's own model. */
const DEFAULT_TRAIT = 'default';

export interface ResolvedChatTarget {
  model: ModelDefinition;
  svc: SvcParameters;
  /** UTF-8 bytes of the character's persona (0 without a character): the chat service adds it to the prompt. */
  personaBytes: number;
}

/**
 * Turns the request's `model` (maybe with a suffix) and `svc_parameters` into the model to run
 * and the effective parameters, refusing unknown models and characters and unavailable features
 * before admission reserves any credit.
 */
@Injectable()
export class SvcParametersResolver {
  constructor(
    private readonly rpc: RpcClient,
    @Inject(CATALOG) private readonly catalog: Catalog,
  ) {}

  async resolve(requested: string, body: SvcParametersInput | undefined, requestId: string): Promise<ResolvedChatTarget> {
    const suffix = parseModelSuffix(requested);
    const svc = mergeSvcParameters(suffix.parameters, body);
    let model = this.catalog.require(suffix.model, 'text');
    let personaBytes = 0;
    if (svc.character_slug) {
      const character = await this.character(svc.character_slug, requestId);
      if (suffix.model === DEFAULT_TRAIT) model = this.catalog.resolve(character.modelId, 'text') ?? model;
      personaBytes = character.personaBytes;
    }
    assertSvcFeaturesAvailable(svc, model);
    return { model, svc, personaBytes };
  }

  private async character(slug: string, requestId: string) {
    try {
      const reply = await this.rpc.send(CHARACTERS.GET, { slug }, { requestId });
      return { ...reply.data, personaBytes: reply.personaBytes };
    } catch (err) {
      if (err instanceof DomainError && err.code === ErrorCode.NotFound) {
        const message = `Character "${slug}" does not exist. See GET /api/v1/characters.`;
        throw new DomainError(ErrorCode.Validation, message, { _errors: [], svc_parameters: { _errors: [], character_slug: { _errors: [message] } } });
      }
      throw err;
    }
  }
}
