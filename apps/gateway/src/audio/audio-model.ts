import { Catalog, ModelDefinition } from '@svc/catalog';
import { DomainError, ErrorCode } from '@svc/errors';

/** A `type` model of the catalog, or a 404 naming the discovery route. */
export function audioModelOf(catalog: Catalog, requested: string, type: 'tts' | 'asr'): ModelDefinition {
  const model = catalog.resolve(requested, type);
  if (!model)
    throw new DomainError(ErrorCode.ModelNotFound, `Model "${requested}" does not exist or is not a ${type} model. See GET /api/v1/models?type=${type}.`);
  return model;
}
