import { DomainError, ErrorCode } from '@svc/errors';
import { AugmentTool, augmentToolOf, AugmentToolName } from './augment-tools';
import { CatalogFile, ModelDefinition, ModelType } from './catalog.schema';

/** Read-only view of the model catalog with the lookups the gateway and services need. */
export class Catalog {
  private readonly byId = new Map<string, ModelDefinition>();

  constructor(readonly file: CatalogFile) {
    for (const model of file.models) this.byId.set(model.id, model);
  }

  get models(): readonly ModelDefinition[] {
    return this.file.models;
  }

  get(id: string): ModelDefinition | undefined {
    return this.byId.get(id);
  }

  /** An `/augment/*` tool as admission prices and limits it. */
  augmentTool(tool: AugmentToolName): AugmentTool {
    return augmentToolOf(this.file.augment, tool);
  }

  ofType(type: ModelType): ModelDefinition[] {
    return this.file.models.filter((m) => m.type === type);
  }

  /** Trait name -> model id, for models of one type (`default`, `fastest`, ...). */
  traits(type: ModelType): Record<string, string> {
    const out: Record<string, string> = {};
    for (const model of this.ofType(type)) for (const trait of model.traits) out[trait] ??= model.id;
    return out;
  }

  compatibilityMapping(type: ModelType): Record<string, string> {
    return Object.fromEntries(Object.entries(this.file.compatibilityMapping).filter(([, id]) => this.byId.get(id)?.type === type));
  }

  /**
   * The model a request names: an id, a trait of that type (`default`), or a compatibility
   * name (`gpt-4o-mini`). Undefined when none matches or the match has another type.
   */
  resolve(requested: string, type: ModelType): ModelDefinition | undefined {
    const id = this.byId.has(requested) ? requested : (this.traits(type)[requested] ?? this.file.compatibilityMapping[requested]);
    const model = id === undefined ? undefined : this.byId.get(id);
    return model?.type === type ? model : undefined;
  }

  /**
   * `resolve`, or a 404 (model not found) that names the discovery route. `what` is the kind the
   * message says the name is not (default: "a tts model", "an image model", ...).
   */
  require(requested: string, type: ModelType, what = `${/^[aeiou]/.test(type) ? 'an' : 'a'} ${type} model`): ModelDefinition {
    const model = this.resolve(requested, type);
    if (!model) throw new DomainError(ErrorCode.ModelNotFound, `Model "${requested}" does not exist or is not ${what}. See GET /api/v1/models?type=${type}.`);
    return model;
  }

  /**
   * The model `GET /models/{id}` answers for a name a request may carry: an id or a compatibility
   * name of any type, or a trait (`default`) of `traitType`, as the inference route of that type
   * resolves it (chat: `text`). Undefined when none matches.
   */
  named(name: string, traitType: ModelType): ModelDefinition | undefined {
    const mapping = this.file.compatibilityMapping;
    const traits = this.traits(traitType);
    const id = this.byId.has(name) ? name : Object.hasOwn(traits, name) ? traits[name] : Object.hasOwn(mapping, name) ? mapping[name] : undefined;
    return id === undefined ? undefined : this.byId.get(id);
  }
}
