import { Body, Controller, Delete, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { AdminOnly } from '../auth/auth.decorators';
import { parseBody } from '../http/parse-body';
import { Call, RouteCall } from '../http/route-call';
import { addReviewBody, createCharacterBody, listCharactersQuery, listReviewsQuery } from './characters.dto';
import { CharactersPipeline } from './characters.pipeline';

/** Characters (personas): reading needs any key, writing an ADMIN key (CharactersPipeline). */
@Controller('characters')
export class CharactersController {
  constructor(private readonly pipeline: CharactersPipeline) {}

  @Get()
  list(@Query() query: unknown, @Call() call: RouteCall) {
    return this.pipeline.list(call, parseBody(listCharactersQuery, query ?? {}));
  }

  @Get(':slug')
  get(@Param('slug') slug: string, @Call() call: RouteCall) {
    return this.pipeline.get(call, slug);
  }

  @Get(':slug/reviews')
  reviews(@Param('slug') slug: string, @Query() query: unknown, @Call() call: RouteCall) {
    return this.pipeline.reviews(call, slug, parseBody(listReviewsQuery, query ?? {}));
  }

  @AdminOnly()
  @Post()
  @HttpCode(200)
  create(@Body() body: unknown, @Call() call: RouteCall) {
    return this.pipeline.create(call, parseBody(createCharacterBody, body));
  }

  @AdminOnly()
  @Delete(':slug')
  delete(@Param('slug') slug: string, @Call() call: RouteCall) {
    return this.pipeline.delete(call, slug);
  }

  @AdminOnly()
  @Post(':slug/reviews')
  @HttpCode(200)
  addReview(@Param('slug') slug: string, @Body() body: unknown, @Call() call: RouteCall) {
    return this.pipeline.addReview(call, slug, parseBody(addReviewBody, body));
  }

  @AdminOnly()
  @Delete(':slug/reviews/:id')
  deleteReview(@Param('slug') slug: string, @Param('id') id: string, @Call() call: RouteCall) {
    return this.pipeline.deleteReview(call, slug, id);
  }
}
