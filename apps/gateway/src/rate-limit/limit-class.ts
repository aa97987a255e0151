import { ModelDefinition, ModelType } from '@svc/catalog';
import { assertUnreachable } from '@svc/errors';
import { RateLimitClass } from '@svc/contracts';

/** Which default limits a model's requests fall under: its catalog tier for text, its type otherwise. */
export function limitClassOf(model: Pick<ModelDefinition, 'type' | 'rateLimitTier'>): RateLimitClass {
  const type: ModelType = model.type;
  switch (type) {
    case 'text':
      return `text:${model.rateLimitTier}`;
    case 'image':
    case 'upscale':
    case 'inpaint':
      return 'image';
    case 'tts':
    case 'asr':
    case 'music':
      return 'audio';
    case 'embedding':
      return 'embedding';
    // Submitting a video job; polling it is `video-retrieve`, chosen by the retrieve endpoint.
    case 'video':
      return 'video-queue';
    default:
      return assertUnreachable(type);
  }
}
