import { Catalog, ModelDefinition } from '@svc/catalog';
import { DomainError, ErrorCode } from '@svc/errors';

/** Whether the model classifies text: an upstream's does; the embedded image classifier does not. */
export const readsText = (model: ModelDefinition): boolean => model.engine.kind !== 'embedded-image-safety';

/**
 * The model a moderation request runs on. Named: that model, which must read text when the input
 * has text. Not named: the catalog's `default` moderation model, or for text the first that reads
 * text when the default does not. Text with no model that reads it is a 400 saying so: text is
 * never judged by anything but a configured model.
 */
export function moderationModelFor(catalog: Catalog, requested: string | undefined, text: boolean): ModelDefinition {
  const textModels = catalog.ofType('moderation').filter(readsText);
  const noTextModel = () =>
    new DomainError(
      ErrorCode.Validation,
      'No text moderation model is configured on this server: the built-in classifier moderates images only. ' +
        'An operator can add one (a catalog model of type moderation on an openai-compatible engine; docs/rerank-moderation.md).',
      { _errors: [], input: { _errors: ['text needs a text moderation model'] } },
    );
  if (requested !== undefined) {
    const model = catalog.resolve(requested, 'moderation');
    if (!model)
      throw new DomainError(
        ErrorCode.ModelNotFound,
        `Model "${requested}" does not exist or is not a moderation model. See GET /api/v1/models?type=moderation.`,
      );
    if (text && !readsText(model)) {
      if (textModels.length === 0) throw noTextModel();
      throw new DomainError(ErrorCode.Validation, `Model ${model.id} moderates images only; for text use ${textModels.map((m) => m.id).join(', ')}.`, {
        _errors: [],
        model: { _errors: ['moderates images only'] },
      });
    }
    return model;
  }
  const fallback = catalog.resolve('default', 'moderation') ?? catalog.ofType('moderation')[0];
  if (text && (!fallback || !readsText(fallback))) {
    if (textModels.length === 0) throw noTextModel();
    return textModels[0];
  }
  if (!fallback) throw new DomainError(ErrorCode.ModelNotFound, 'No moderation model is configured on this server. See GET /api/v1/models?type=moderation.');
  return fallback;
}
