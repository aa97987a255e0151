import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { parseBody } from '../http/parse-body';
import { Call, RouteCall } from '../http/route-call';
import { ImageEditPipeline } from './image-edit.pipeline';
import { imageBackgroundRemoveSchema, imageEditSchema, imageMultiEditSchema, imageUpscaleSchema, openAiEditSchema } from './image-request.dto';
import { plainBody } from './multipart-body';

/** `POST /image/edit`, `/image/multi-edit`, `/image/upscale`, `/image/background-remove` (a file back) and the OpenAI-shaped `POST /images/edits`. */
@Controller()
export class ImageEditController {
  constructor(private readonly pipeline: ImageEditPipeline) {}

  @Post('image/edit')
  @HttpCode(200)
  async edit(@Body() body: unknown, @Call() call: RouteCall): Promise<Buffer> {
    return this.pipeline.edit(call, parseBody(imageEditSchema, await plainBody(body)));
  }

  @Post('image/multi-edit')
  @HttpCode(200)
  async multiEdit(@Body() body: unknown, @Call() call: RouteCall): Promise<Buffer> {
    return this.pipeline.multiEdit(call, parseBody(imageMultiEditSchema, await plainBody(body, ['images'])));
  }

  @Post('images/edits')
  @HttpCode(200)
  async openAiEdit(@Body() body: unknown, @Call() call: RouteCall) {
    return this.pipeline.openAiEdit(call, parseBody(openAiEditSchema, await plainBody(body)));
  }

  @Post('image/upscale')
  @HttpCode(200)
  async upscale(@Body() body: unknown, @Call() call: RouteCall): Promise<Buffer> {
    return this.pipeline.upscale(call, parseBody(imageUpscaleSchema, await plainBody(body)));
  }

  @Post('image/background-remove')
  @HttpCode(200)
  async backgroundRemove(@Body() body: unknown, @Call() call: RouteCall): Promise<Buffer> {
    return this.pipeline.backgroundRemove(call, parseBody(imageBackgroundRemoveSchema, await plainBody(body)));
  }
}
