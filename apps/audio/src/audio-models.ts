import { Catalog, ModelDefinition } from '@svc/catalog';
import { DomainError, ErrorCode } from '@svc/errors';

export function modelOfType(catalog: Catalog, id: string, type: 'tts' | 'asr'): ModelDefinition {
  const model = catalog.resolve(id, type);
  if (!model) throw new DomainError(ErrorCode.ModelNotFound, `Model ${id} does not exist or is not a ${type} model.`);
  return model;
}
