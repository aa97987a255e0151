import { AugmentTool, ModelDefinition, ModelType } from '@svc/catalog';
import { assertUnreachable } from '@svc/errors';
import { RateLimitClass } from '@svc/contracts';
import type { LimitOverride } from '../admission/admission.types';

/** Which default limits a model's requests fall under: its catalog tier for text, its type otherwise. */
/** What limits are chosen by: a catalog model's type and tier, or an `/augment/*` tool. */
export type LimitedModel = (Pick<ModelDefinition, 'id' | 'type' | 'rateLimitTier'> | Pick<AugmentTool, 'id' | 'type'>) & LimitOverride;

export function limitClassOf(model: (Pick<ModelDefinition, 'type' | 'rateLimitTier'> | Pick<AugmentTool, 'type'>) & LimitOverride): RateLimitClass {
  if (model.limitClass) return model.limitClass;
  if (model.type === 'augment') return 'augment';
  const type: ModelType = model.type;
  switch (type) {
    case 'text':
      return `text:${model.rateLimitTier}`;
    case 'image':
    case 'upscale':
    case 'inpaint':
    case 'background-remove':
      return 'image';
    case 'tts':
    case 'asr':
    case 'music':
      return 'audio';
    // Moderation is a classifier pass like an embedding: it shares that class's limits.
    case 'embedding':
    case 'moderation':
      return 'embedding';
    // Submitting a video job; polling it is `video-retrieve`, chosen by the retrieve endpoint.
    case 'video':
      return 'video-queue';
    default:
      return assertUnreachable(type);
  }
}
