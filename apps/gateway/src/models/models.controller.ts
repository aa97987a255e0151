import { Controller, Get, Inject, Param, Query } from '@nestjs/common';
import { Catalog, MODEL_TYPES, ModelType, toModelView } from '@svc/catalog';
import { DomainError, ErrorCode } from '@svc/errors';
import { z } from 'zod';
import { Public } from '../auth/auth.decorators';
import { CATALOG } from './models.tokens';

export const listQuery = z.object({ type: z.enum([...MODEL_TYPES, 'all', 'code']).default('all') });
export const typedQuery = z.object({ type: z.enum(MODEL_TYPES).default('text') });

function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.infer<S> {
  const parsed = schema.safeParse(query ?? {});
  if (!parsed.success) throw DomainError.validation(parsed.error.issues);
  return parsed.data;
}

/** Discovery endpoints: readable without an API key. */
@Controller('models')
export class ModelsController {
  constructor(@Inject(CATALOG) private readonly catalog: Catalog) {}

  @Public()
  @Get()
  list(@Query() query: unknown) {
    const { type } = parseQuery(listQuery, query);
    const models =
      type === 'all' ? this.catalog.models : type === 'code' ? this.catalog.ofType('text').filter((m) => m.capabilities.optimizedForCode === true) : this.catalog.ofType(type as ModelType);
    return { object: 'list', type, data: models.map(toModelView) };
  }

  @Public()
  @Get('traits')
  traits(@Query() query: unknown) {
    const { type } = parseQuery(typedQuery, query);
    return { object: 'list', type, data: this.catalog.traits(type) };
  }

  @Public()
  @Get('compatibility_mapping')
  compatibility(@Query() query: unknown) {
    const { type } = parseQuery(typedQuery, query);
    return { object: 'list', type, data: this.catalog.compatibilityMapping(type) };
  }

  /**
   * One model as `GET /models` lists it (OpenAI's `models.retrieve`), for every name a request may
   * carry, answered with the model's own id: an id, a compatibility name (`gpt-4o-mini`, `whisper-1`)
   * as its model, a trait (`default`) as the model of `type` (default `text`, as chat resolves it).
   */
  @Public()
  @Get(':id')
  retrieve(@Param('id') id: string, @Query() query: unknown) {
    const { type } = parseQuery(typedQuery, query);
    const model = this.catalog.named(id, type);
    if (!model) throw new DomainError(ErrorCode.ModelNotFound, `Model "${id}" does not exist. See GET /api/v1/models?type=all.`);
    return toModelView(model);
  }
}
