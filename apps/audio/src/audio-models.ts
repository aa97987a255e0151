import { Catalog, ModelDefinition } from '@svc/catalog';

export function modelOfType(catalog: Catalog, id: string, type: 'tts' | 'asr'): ModelDefinition {
  return catalog.require(id, type);
}
