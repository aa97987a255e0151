import { ModelDefinition } from '@svc/catalog';
import { ChatMessage, ContentPartType } from '@svc/contracts';
import { DomainError } from '@svc/errors';

/** The catalog capability each non-text content part needs. */
const CAPABILITY: Record<Exclude<ContentPartType, 'text'>, { flag: string; what: string }> = {
  image_url: { flag: 'supportsVision', what: 'image input (image_url)' },
  input_audio: { flag: 'supportsAudioInput', what: 'audio input (input_audio)' },
  video_url: { flag: 'supportsVideoInput', what: 'video input (video_url)' },
};

export const capable = (model: ModelDefinition, flag: string): boolean => model.capabilities[flag] === true;

/**
 * Every non-text part must be one the model takes, per its catalog capabilities; otherwise a 400
 * naming the part. Text parts were already joined into `content` by the gateway.
 */
export function checkContentParts(model: ModelDefinition, messages: ChatMessage[]): void {
  let images = 0;
  messages.forEach((message, i) => {
    message.parts?.forEach((part, j) => {
      if (part.type === 'text') return;
      const need = CAPABILITY[part.type];
      if (!capable(model, need.flag)) {
        throw fieldError(['messages', i, 'content', j], `Model ${model.id} does not support ${need.what}; send text only or choose a model with ${need.flag}.`);
      }
      if (part.type === 'image_url' && ++images > 1 && !capable(model, 'supportsMultipleImages')) {
        throw fieldError(['messages', i, 'content', j], `Model ${model.id} takes one image per request (supportsMultipleImages is false).`);
      }
    });
  });
}

/** A 400 DetailedError for one field path. */
export function fieldError(path: Array<string | number>, message: string): DomainError {
  return DomainError.validation([{ path, message }]);
}
