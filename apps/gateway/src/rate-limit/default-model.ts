import { Catalog, ModelDefinition } from '@svc/catalog';

/** The model whose counters non-inference responses report: the `default` text model, else the first text model. */
export function defaultTextModel(catalog: Catalog): ModelDefinition | undefined {
  return catalog.resolve('default', 'text') ?? catalog.ofType('text')[0];
}
