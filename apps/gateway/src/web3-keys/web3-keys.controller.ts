import { Body, Controller, Get, HttpCode, HttpStatus, Post, Req } from '@nestjs/common';
import { FastifyRequest } from 'fastify';
import { WALLET_AUTH } from '@svc/contracts';
import { QUICK_CALL_IDLE_MS, RpcClient } from '@svc/messaging';
import { newKeySettings } from '../api-keys/api-keys.dto';
import { createdKeyData } from '../api-keys/created-key';
import { Public } from '../auth/auth.decorators';
import { parseBody } from '../http/parse-body';
import { generateWeb3KeySchema } from './web3-keys.dto';

const WALLET_CALL = { timeoutMs: 5_000, idleTimeoutMs: QUICK_CALL_IDLE_MS };

/**
 * A wallet makes itself an API key without any other credential: GET a token, sign it with the
 * wallet, POST it back (docs/wallet.md, "API keys for a wallet"). The wallet service checks the
 * token and signature and creates the key for the wallet's account.
 */
@Public()
@Controller('api_keys/generate_web3_key')
export class Web3KeysController {
  constructor(private readonly rpc: RpcClient) {}

  @Get()
  async token(@Req() request: FastifyRequest) {
    const { token } = await this.rpc.send(WALLET_AUTH.WEB3_KEY_TOKEN, {}, { requestId: request.id, ...WALLET_CALL });
    return { success: true, data: { token } };
  }

  /** 200 as in the reference (a POST answers 201 by default). */
  @Post()
  @HttpCode(HttpStatus.OK)
  async create(@Body() body: unknown, @Req() request: FastifyRequest) {
    const input = parseBody(generateWeb3KeySchema, body);
    const key = newKeySettings(input);
    const created = await this.rpc.send(
      WALLET_AUTH.WEB3_KEY_CREATE,
      { address: input.address, signature: input.signature, token: input.token, key },
      { requestId: request.id, ...WALLET_CALL },
    );
    return { success: true, data: createdKeyData(created) };
  }
}
