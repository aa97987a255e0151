import {
  ImageBackgroundRemoveRequest,
  ImageEditRequest,
  ImageFileReply,
  ImageGenerateReply,
  ImageGenerateRequest,
  ImageUpscaleRequest,
} from './image-requests';

export const MEDIA = {
  IMAGE_GENERATE: 'media.cmd.image-generate.v1',
  IMAGE_EDIT: 'media.cmd.image-edit.v1',
  IMAGE_UPSCALE: 'media.cmd.image-upscale.v1',
  IMAGE_BACKGROUND_REMOVE: 'media.cmd.image-background-remove.v1',
} as const;

export interface MediaRpc {
  [MEDIA.IMAGE_GENERATE]: { req: ImageGenerateRequest; res: ImageGenerateReply };
  [MEDIA.IMAGE_EDIT]: { req: ImageEditRequest; res: ImageFileReply };
  [MEDIA.IMAGE_UPSCALE]: { req: ImageUpscaleRequest; res: ImageFileReply };
  [MEDIA.IMAGE_BACKGROUND_REMOVE]: { req: ImageBackgroundRemoveRequest; res: ImageFileReply };
}
