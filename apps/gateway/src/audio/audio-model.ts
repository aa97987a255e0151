import { Catalog, ModelDefinition } from '@svc/catalog';

/** A `type` model of the catalog, or a 404 naming the discovery route. */
export function audioModelOf(catalog: Catalog, requested: string, type: 'tts' | 'asr'): ModelDefinition {
  return catalog.require(requested, type);
}
