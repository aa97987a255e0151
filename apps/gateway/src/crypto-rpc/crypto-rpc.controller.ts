import { Body, Controller, Get, Headers, HttpCode, Param, Post, Req } from '@nestjs/common';
import { CryptoRpcNetworksReply } from '@svc/contracts';
import { HEADER } from '@svc/headers';
import { AuthenticatedRequest, Public } from '../auth/auth.decorators';
import { parseBody } from '../http/parse-body';
import { Call, RouteCall } from '../http/route-call';
import { cryptoRpcParams, parseIdempotencyKey, parseRpcBody } from './crypto-rpc.dto';
import { CryptoRpcPipeline } from './crypto-rpc.pipeline';

/** `GET /crypto/rpc/networks` and `POST /crypto/rpc/{network}` (docs/wallet.md, "JSON-RPC proxy"). */
@Controller('crypto/rpc')
export class CryptoRpcController {
  constructor(private readonly pipeline: CryptoRpcPipeline) {}

  @Public()
  @Get('networks')
  networks(@Req() request: AuthenticatedRequest): Promise<CryptoRpcNetworksReply> {
    return this.pipeline.networks(request.id);
  }

  @Post(':network')
  @HttpCode(200)
  call(
    @Param('network') network: string,
    @Body() body: unknown,
    @Headers(HEADER.idempotencyKey) idempotencyKey: string | undefined,
    @Call() call: RouteCall,
  ): Promise<unknown> {
    const { network: slug } = parseBody(cryptoRpcParams, { network });
    const rpcBody = parseRpcBody(body);
    return this.pipeline.run(call, slug, rpcBody, idempotencyKey === undefined ? undefined : parseIdempotencyKey(idempotencyKey));
  }
}
