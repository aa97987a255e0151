import { ModelDefinition } from './catalog.schema';

/** A model as `GET /models` shows it (the public API's ModelResponse shape). */
export function toModelView(model: ModelDefinition): Record<string, unknown> {
  const isText = model.type === 'text';
  const spec: Record<string, unknown> = {
    name: model.name,
    description: model.description,
    privacy: model.privacy,
    offline: false,
    beta: false,
    modelSource: model.modelSource ?? (model.engine.kind.startsWith('embedded-') ? 'embedded' : 'upstream'),
    pricing: model.pricing,
    traits: model.traits,
    constraints: publicConstraints(model.constraints),
  };
  if (isText) {
    spec.availableContextTokens = model.availableContextTokens;
    spec.maxCompletionTokens = model.maxCompletionTokens;
    spec.rateLimitTier = model.rateLimitTier;
    spec.capabilities = { quantization: model.quantization, ...model.capabilities };
  }
  if (model.deprecation) {
    spec.deprecation = {
      date: model.deprecation.date,
      removesAt: model.deprecation.date,
      autoRemap: false,
      replacementModelId: model.deprecation.replacementModelId,
    };
  }
  const view: Record<string, unknown> = { id: model.id, object: 'model', type: model.type, created: model.created, owned_by: 'svc', model_spec: spec };
  if (isText && model.availableContextTokens) view.context_length = model.availableContextTokens;
  return view;
}

/** The operator's region policy of a video model (`regionBlock`: header, countries, address ranges) is not published. */
function publicConstraints(constraints: Record<string, unknown>): Record<string, unknown> {
  const { regionBlock: _regionBlock, ...shown } = constraints;
  return shown;
}
