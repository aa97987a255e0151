import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  ImageBackgroundRemoveRequest,
  ImageEditRequest,
  ImageFileReply,
  ImageGenerateReply,
  ImageGenerateRequest,
  ImageUpscaleRequest,
  MEDIA,
} from '@svc/contracts';
import { ImageService } from './image.service';

@Controller()
export class ImageHandler {
  constructor(private readonly images: ImageService) {}

  @MessagePattern(MEDIA.IMAGE_GENERATE)
  generate(@Payload() request: ImageGenerateRequest): Promise<ImageGenerateReply> {
    return this.images.generate(request);
  }

  @MessagePattern(MEDIA.IMAGE_EDIT)
  edit(@Payload() request: ImageEditRequest): Promise<ImageFileReply> {
    return this.images.edit(request);
  }

  @MessagePattern(MEDIA.IMAGE_UPSCALE)
  upscale(@Payload() request: ImageUpscaleRequest): Promise<ImageFileReply> {
    return this.images.upscale(request);
  }

  @MessagePattern(MEDIA.IMAGE_BACKGROUND_REMOVE)
  backgroundRemove(@Payload() request: ImageBackgroundRemoveRequest): Promise<ImageFileReply> {
    return this.images.backgroundRemove(request);
  }
}
