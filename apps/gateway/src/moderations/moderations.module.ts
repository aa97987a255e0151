import { Module } from '@nestjs/common';
import { AdmissionModule } from '../admission/admission.module';
import { imageBlobsProvider, imageUrlFetcherProvider } from '../image/image-blobs';
import { ModerationsController } from './moderations.controller';
import { ModerationsPipeline } from './moderations.pipeline';

/** `POST /moderations` (docs/rerank-moderation.md): the gateway picks the model, checks images, admits, and relays to the media service. */
@Module({
  imports: [AdmissionModule],
  controllers: [ModerationsController],
  providers: [ModerationsPipeline, imageBlobsProvider, imageUrlFetcherProvider],
})
export class ModerationsModule {}
