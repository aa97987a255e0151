import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  WALLET_AUTH,
  Web3KeyCreateReply,
  Web3KeyCreateRequest,
  web3KeyCreateRequestSchema,
  Web3KeyTokenReply,
  web3KeyTokenRequestSchema,
} from '@svc/contracts';
import { Web3KeysService } from './web3-keys.service';

@Controller()
export class Web3KeysHandler {
  constructor(private readonly keys: Web3KeysService) {}

  @MessagePattern(WALLET_AUTH.WEB3_KEY_TOKEN)
  token(@Payload() data: unknown): Promise<Web3KeyTokenReply> {
    web3KeyTokenRequestSchema.parse(data ?? {});
    return this.keys.token();
  }

  @MessagePattern(WALLET_AUTH.WEB3_KEY_CREATE)
  create(@Payload() data: unknown): Promise<Web3KeyCreateReply> {
    web3KeyCreateRequestSchema.parse(data);
    // Checked above; forwarded as sent (the keys service parses the key fields again on receipt).
    return this.keys.create(data as Web3KeyCreateRequest);
  }
}
