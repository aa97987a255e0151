import { ModelDefinition } from '@svc/catalog';
import { SVC_PARAMETER_DEFAULTS, SVC_PARAMETER_NAMES, SvcParameterName, SvcParameters } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { SvcParametersInput, svcParametersSchema } from './svc-parameters.schema';

/** `name=value` pairs joined by `&`: what makes the text after a `:` a suffix rather than part of an id. */
const SUFFIX = /^[^=&:]+=[^&]*(?:&[^=&]+=[^&]*)*$/;

export interface ModelSuffix {
  /** The model name without the suffix, as the catalog resolves it. */
  model: string;
  /** The suffix parameters, validated; empty when there is no suffix. */
  parameters: SvcParametersInput;
}

const suffixError = (message: string) =>
  new DomainError(ErrorCode.Validation, `Invalid request: model: ${message}`, { _errors: [], model: { _errors: [message] } });

/**
 * Splits `<model_id>:<parameter>=<value>&<parameter>=<value>` into the model and the parameters.
 * The suffix starts at the first `:` followed by `name=value` pairs, so ids that contain a `:`
 * themselves (`llama3:8b`) still resolve. Values are URL-decoded; booleans are `true`/`false`.
 */
export function parseModelSuffix(requested: string): ModelSuffix {
  let at = requested.indexOf(':');
  while (at !== -1 && !SUFFIX.test(requested.slice(at + 1))) at = requested.indexOf(':', at + 1);
  if (at <= 0) return { model: requested, parameters: {} };
  const raw: Record<string, unknown> = {};
  for (const pair of requested.slice(at + 1).split('&')) {
    const eq = pair.indexOf('=');
    const name = decode(pair.slice(0, eq));
    const value = decode(pair.slice(eq + 1));
    if (!(SVC_PARAMETER_NAMES as readonly string[]).includes(name)) {
      throw suffixError(`unknown model suffix parameter "${name}"; allowed: ${SVC_PARAMETER_NAMES.join(', ')}`);
    }
    if (name in raw) throw suffixError(`model suffix parameter "${name}" is given twice`);
    raw[name] = value === 'true' ? true : value === 'false' ? false : value;
  }
  const parsed = svcParametersSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw suffixError(`model suffix parameter "${String(issue.path[0])}" ${issue.message}`);
  }
  return { model: requested.slice(0, at), parameters: parsed.data };
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '));
  } catch {
    throw suffixError(`model suffix "${text}" is not valid URL encoding`);
  }
}

/**
 * The effective parameters: defaults, overridden by the model suffix, overridden by the body's
 * `svc_parameters`, parameter by parameter (the body is the more explicit of the two forms).
 */
export function mergeSvcParameters(suffix: SvcParametersInput, body: SvcParametersInput | undefined): SvcParameters {
  const merged: SvcParameters = { ...SVC_PARAMETER_DEFAULTS };
  for (const source of [suffix, body ?? {}]) {
    for (const [name, value] of Object.entries(source) as Array<[SvcParameterName, unknown]>) {
      if (value !== undefined) (merged as unknown as Record<string, unknown>)[name] = value;
    }
  }
  return merged;
}

/**
 * Refuses what no deployment of this server can do, before any credit is reserved: x search
 * needs a model that declares `supportsXSearch`, and no x search provider exists yet. The web
 * flags go to the chat service's augmentation step (docs/retrieval.md), which alone knows whether
 * a search provider is configured: `enable_web_search: "on"` without one is its 400 there, before
 * anything is generated; `"auto"` proceeds without search.
 */
export function assertSvcFeaturesAvailable(params: SvcParameters, model: ModelDefinition): void {
  if (params.enable_x_search) {
    if (model.capabilities.supportsXSearch !== true) {
      throw featureError('enable_x_search', `Model ${model.id} does not support x search (capabilities.supportsXSearch); see GET /api/v1/models.`);
    }
    throw featureError('enable_x_search', 'x search is not configured on this server.');
  }
}

function featureError(field: SvcParameterName, message: string): DomainError {
  return new DomainError(ErrorCode.Validation, message, { _errors: [], svc_parameters: { _errors: [], [field]: { _errors: [message] } } });
}
