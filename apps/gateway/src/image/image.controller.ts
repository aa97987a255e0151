import { Body, Controller, Get, HttpCode, Post } from '@nestjs/common';
import { IMAGE_STYLES } from '@svc/contracts';
import { Public } from '../auth/auth.decorators';
import { parseBody } from '../http/parse-body';
import { Call, RouteCall } from '../http/route-call';
import { ImageGenerateResponse, ImageGenerationPipeline } from './image-generation.pipeline';
import { imageGenerateSchema, openAiImageSchema } from './image-request.dto';

/** `POST /image/generate`, `GET /image/styles` and the OpenAI-shaped `POST /images/generations`. */
@Controller()
export class ImageController {
  constructor(private readonly pipeline: ImageGenerationPipeline) {}

  @Public()
  @Get('image/styles')
  styles(): { object: 'list'; data: string[] } {
    return { object: 'list', data: IMAGE_STYLES.map((s) => s.name) };
  }

  @Post('image/generate')
  @HttpCode(200)
  generate(@Body() body: unknown, @Call() call: RouteCall): Promise<ImageGenerateResponse | Buffer> {
    return this.pipeline.generate(call, parseBody(imageGenerateSchema, body), body);
  }

  @Post('images/generations')
  @HttpCode(200)
  openAiGenerate(@Body() body: unknown, @Call() call: RouteCall) {
    return this.pipeline.openAiGenerate(call, parseBody(openAiImageSchema, body));
  }
}
