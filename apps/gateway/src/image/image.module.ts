import { Module } from '@nestjs/common';
import { AdmissionModule } from '../admission/admission.module';
import { imageBlobsProvider, imageUrlFetcherProvider } from './image-blobs';
import { ImageEditController } from './image-edit.controller';
import { ImageEditPipeline } from './image-edit.pipeline';
import { ImageGenerationPipeline } from './image-generation.pipeline';
import { ImageController } from './image.controller';
import { PromptEnhancer } from './prompt-enhancer';

/** The image endpoints (docs/images.md): the gateway validates, admits and relays to the media service. */
@Module({
  imports: [AdmissionModule],
  controllers: [ImageController, ImageEditController],
  providers: [ImageGenerationPipeline, ImageEditPipeline, PromptEnhancer, imageBlobsProvider, imageUrlFetcherProvider],
})
export class ImageModule {}
