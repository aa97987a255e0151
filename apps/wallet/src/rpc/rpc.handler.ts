import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  CRYPTO_RPC,
  CryptoRpcCallReply,
  cryptoRpcCallRequestSchema,
  CryptoRpcNetworksReply,
  cryptoRpcNetworksRequestSchema,
  CryptoRpcQuoteReply,
  cryptoRpcQuoteRequestSchema,
} from '@svc/contracts';
import { RpcProxyService } from './rpc-proxy.service';

@Controller()
export class RpcHandler {
  constructor(private readonly proxy: RpcProxyService) {}

  @MessagePattern(CRYPTO_RPC.NETWORKS)
  networks(@Payload() data: unknown): CryptoRpcNetworksReply {
    cryptoRpcNetworksRequestSchema.parse(data);
    return this.proxy.networks();
  }

  @MessagePattern(CRYPTO_RPC.QUOTE)
  quote(@Payload() data: unknown): CryptoRpcQuoteReply {
    return this.proxy.quote(cryptoRpcQuoteRequestSchema.parse(data));
  }

  @MessagePattern(CRYPTO_RPC.CALL)
  call(@Payload() data: unknown): Promise<CryptoRpcCallReply> {
    return this.proxy.call(cryptoRpcCallRequestSchema.parse(data));
  }
}
