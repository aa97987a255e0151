import { domainErrorOf } from '@svc/testing';
import { ModelDefinition } from '@svc/catalog';
import { SVC_PARAMETER_DEFAULTS } from '@svc/contracts';
import { assertSvcFeaturesAvailable, mergeSvcParameters, parseModelSuffix } from './svc-parameters';
import { svcParametersSchema } from './svc-parameters.schema';

const failure = domainErrorOf;

describe('svc_parameters body schema', () => {
  it('accepts all ten parameters with their types', () => {
    const all = {
      character_slug: 'plain-guide',
      strip_thinking_response: true,
      disable_thinking: true,
      enable_web_search: 'auto',
      enable_web_scraping: false,
      enable_x_search: false,
      enable_web_citations: false,
      include_search_results_in_stream: false,
      return_search_results_as_documents: false,
      include_svc_system_prompt: false,
    };
    expect(svcParametersSchema.parse(all)).toEqual(all);
  });

  it.each([
    ['strip_thinking_response', 'true'],
    ['disable_thinking', 1],
    ['include_svc_system_prompt', null],
    ['enable_web_scraping', 'false'],
    ['enable_web_search', 'yes'],
    ['enable_web_search', true],
    ['character_slug', ''],
    ['character_slug', 'Not A Slug'],
    ['character_slug', 7],
  ])('rejects %s = %j, naming the field', (field, value) => {
    const parsed = svcParametersSchema.safeParse({ [field]: value });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0].path).toEqual([field]);
  });

  it('drops unknown keys (undocumented fields pass through unvalidated)', () => {
    expect(svcParametersSchema.parse({ enable_e2ee: true, disable_thinking: true })).toEqual({ disable_thinking: true });
  });
});

describe('model suffix', () => {
  it('leaves a plain model name alone', () => {
    expect(parseModelSuffix('svc-zoo-chat')).toEqual({ model: 'svc-zoo-chat', parameters: {} });
    expect(parseModelSuffix('llama3:8b')).toEqual({ model: 'llama3:8b', parameters: {} });
  });

  it('parses parameters after the model id into typed values', () => {
    expect(
      parseModelSuffix('svc-zoo-chat:enable_web_search=auto&strip_thinking_response=true&include_svc_system_prompt=false&character_slug=plain-guide'),
    ).toEqual({
      model: 'svc-zoo-chat',
      parameters: { enable_web_search: 'auto', strip_thinking_response: true, include_svc_system_prompt: false, character_slug: 'plain-guide' },
    });
  });

  it('keeps a colon inside the model id (the suffix starts at the first name=value list)', () => {
    expect(parseModelSuffix('llama3:8b:disable_thinking=true')).toEqual({ model: 'llama3:8b', parameters: { disable_thinking: true } });
  });

  it('URL-decodes values', () => {
    expect(parseModelSuffix('m:character_slug=plain%2Dguide').parameters).toEqual({ character_slug: 'plain-guide' });
  });

  it.each([
    ['m:bogus=1', /unknown model suffix parameter "bogus"/],
    ['m:disable_thinking=yes', /"disable_thinking" must be a boolean/],
    ['m:disable_thinking=1', /"disable_thinking" must be a boolean/],
    ['m:enable_web_search=always', /"enable_web_search" must be one of off, on, auto/],
    ['m:disable_thinking=true&disable_thinking=false', /given twice/],
    ['m:character_slug=%E0%A4%A', /not valid URL encoding/],
  ])('rejects %s with a 400 naming the model field', (model, message) => {
    const err = failure(() => parseModelSuffix(model));
    expect(err.status).toBe(400);
    expect((err.details?.model as { _errors: string[] })._errors[0]).toMatch(message);
  });
});

describe('merging', () => {
  it('fills in the defaults', () => {
    expect(mergeSvcParameters({}, undefined)).toEqual(SVC_PARAMETER_DEFAULTS);
    expect(mergeSvcParameters({}, undefined)).not.toHaveProperty('character_slug');
  });

  it('lets the body win over the suffix, parameter by parameter', () => {
    const merged = mergeSvcParameters(
      { strip_thinking_response: true, include_svc_system_prompt: false },
      { include_svc_system_prompt: true, disable_thinking: true },
    );
    expect(merged).toMatchObject({ strip_thinking_response: true, include_svc_system_prompt: true, disable_thinking: true });
  });
});

describe('feature availability', () => {
  const model = (capabilities: Record<string, unknown> = {}) => ({ id: 'm', capabilities }) as unknown as ModelDefinition;

  it('lets defaults and enable_web_search "auto" through', () => {
    expect(() => assertSvcFeaturesAvailable(mergeSvcParameters({}, undefined), model())).not.toThrow();
    expect(() => assertSvcFeaturesAvailable(mergeSvcParameters({}, { enable_web_search: 'auto' }), model())).not.toThrow();
  });

  it.each([
    { enable_web_search: 'on' as const },
    { enable_web_scraping: true },
    { enable_web_citations: true },
    { include_search_results_in_stream: true },
    { return_search_results_as_documents: true },
  ])('leaves %j to the chat service augmentation step', (params) => {
    expect(() => assertSvcFeaturesAvailable(mergeSvcParameters({}, params), model())).not.toThrow();
  });

  it('refuses enable_x_search on a model without supportsXSearch, and as not configured on one with it', () => {
    const params = mergeSvcParameters({}, { enable_x_search: true });
    expect(failure(() => assertSvcFeaturesAvailable(params, model())).message).toMatch(/does not support x search/);
    expect(failure(() => assertSvcFeaturesAvailable(params, model({ supportsXSearch: true }))).message).toMatch(/not configured/);
  });
});
