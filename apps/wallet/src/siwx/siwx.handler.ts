import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { SiwxSignInReply, siwxSignInRequestSchema, WALLET_AUTH } from '@svc/contracts';
import { SiwxService } from './siwx.service';

@Controller()
export class SiwxHandler {
  constructor(private readonly siwx: SiwxService) {}

  @MessagePattern(WALLET_AUTH.SIGN_IN)
  signIn(@Payload() data: unknown): Promise<SiwxSignInReply> {
    return this.siwx.signIn(siwxSignInRequestSchema.parse(data).header);
  }
}
