import { Catalog, catalogSchema } from '@svc/catalog';
import { CHARACTERS, CharacterView } from '@svc/contracts';
import { DomainError, ErrorCode } from '@svc/errors';
import { SvcParametersResolver } from './svc-parameters.resolver';
import { fakeRpc } from '@svc/messaging/testing';

const text = (id: string, over: Record<string, unknown> = {}) => ({
  id,
  name: id,
  type: 'text',
  engine: { kind: 'openai-compatible', baseUrl: 'http://127.0.0.1:1/v1', model: id },
  pricing: { input: { usd: 1, diem: 1 }, output: { usd: 1, diem: 1 } },
  ...over,
});
const catalog = new Catalog(
  catalogSchema.parse({ models: [text('small', { traits: ['default'] }), text('big'), text('xs', { capabilities: { supportsXSearch: true } })] }),
);

/** A persona as the characters service answers it. */
const character = (slug: string, modelId: string): CharacterView => ({
  id: slug,
  slug,
  name: slug,
  description: null,
  modelId,
  tags: [],
  adult: false,
  webEnabled: false,
  featured: false,
  author: 'a',
  shareUrl: null,
  photoUrl: null,
  stats: { averageRating: 0, imports: 0, ratingCount: 0, ratingSum: 0, userRating: null },
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

function resolver(characters: Record<string, string> = {}, failure?: DomainError) {
  const { rpc, calls } = fakeRpc({
    [CHARACTERS.GET]: (req) => {
      if (failure) throw failure;
      const modelId = characters[req.slug];
      if (!modelId) throw new DomainError(ErrorCode.NotFound, 'not found');
      return { data: character(req.slug, modelId), personaBytes: 0 };
    },
  });
  return { resolver: new SvcParametersResolver(rpc, catalog), sent: calls };
}

describe('SvcParametersResolver', () => {
  it('resolves the bare model of a suffixed name and merges the parameters', async () => {
    const { resolver: r, sent } = resolver();
    const { model, svc } = await r.resolve('big:strip_thinking_response=true', { disable_thinking: true }, 'req-1');
    expect(model.id).toBe('big');
    expect(svc).toMatchObject({ strip_thinking_response: true, disable_thinking: true, include_svc_system_prompt: true });
    expect(sent).toEqual([]);
  });

  it('is MODEL_NOT_FOUND for an unknown model, suffix or not', async () => {
    await expect(resolver().resolver.resolve('nope:disable_thinking=true', undefined, 'r')).rejects.toMatchObject({ code: ErrorCode.ModelNotFound });
  });

  it("uses the character's model only when the request names the default trait", async () => {
    const { resolver: r, sent } = resolver({ persona: 'big' });
    expect((await r.resolve('default', { character_slug: 'persona' }, 'r')).model.id).toBe('big');
    expect((await r.resolve('default:character_slug=persona', undefined, 'r')).model.id).toBe('big');
    expect((await r.resolve('small', { character_slug: 'persona' }, 'r')).model.id).toBe('small');
    expect(sent[0]).toEqual({ subject: CHARACTERS.GET, request: { slug: 'persona' } });
  });

  it('keeps the default model when the character names a model this catalog does not have', async () => {
    expect((await resolver({ persona: 'gone-model' }).resolver.resolve('default', { character_slug: 'persona' }, 'r')).model.id).toBe('small');
  });

  it('turns an unknown character into a 400 naming svc_parameters.character_slug, and passes other failures on', async () => {
    const err = await resolver()
      .resolver.resolve('small', { character_slug: 'ghost' }, 'r')
      .catch((e: DomainError) => e);
    expect(err).toMatchObject({
      code: ErrorCode.Validation,
      details: { svc_parameters: { character_slug: { _errors: [expect.stringMatching(/does not exist/)] } } },
    });
    const down = new DomainError(ErrorCode.ServiceUnavailable, 'chat down');
    await expect(resolver({}, down).resolver.resolve('small', { character_slug: 'ghost' }, 'r')).rejects.toBe(down);
  });

  it('checks features against the resolved model', async () => {
    await expect(resolver().resolver.resolve('small', { enable_x_search: true }, 'r')).rejects.toThrow(/does not support x search/);
    await expect(resolver().resolver.resolve('xs', { enable_x_search: true }, 'r')).rejects.toThrow(/not configured/);
  });
});
