import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { CreateModerationReply, CreateModerationRequest, MODERATIONS } from '@svc/contracts';
import { ModerationService } from './moderation.service';

@Controller()
export class ModerationHandler {
  constructor(private readonly moderation: ModerationService) {}

  @MessagePattern(MODERATIONS.CREATE)
  create(@Payload() request: CreateModerationRequest): Promise<CreateModerationReply> {
    return this.moderation.create(request);
  }
}
